// Crashes: the kernel writes through a null pointer (an illegal address).
// Expected: fail at correctness with the CUDA error named.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>

__global__ void silu_and_mul_kernel(__nv_bfloat16 *out, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __float2bfloat16(1.f);
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  int64_t n = out.numel();
  silu_and_mul_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(nullptr, n);
}
