// silu_and_mul that also takes an 8 GiB scratch tensor from torch's allocator
// on every call (GpuGate.GpuMbCapsTheAllocator): correct, but past a gpu_mb cap.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void silu_and_mul_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, int64_t t, int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= t * d)
    return;
  int64_t row = i / d, col = i % d;
  float a = __bfloat162float(x[row * 2 * d + col]);
  float b = __bfloat162float(x[row * 2 * d + d + col]);
  out[i] = __float2bfloat16(a / (1.f + __expf(-a)) * b);
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  at::Tensor scratch = at::empty({int64_t(2) << 30}, x.options().dtype(at::kFloat));
  int64_t t = x.size(0);
  int d = x.size(1) / 2;
  int64_t n = t * d;
  silu_and_mul_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), t, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
