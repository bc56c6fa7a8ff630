// Out-of-bounds read that happens to pass: one thread too many, and the extra
// thread reads past the end of x (it writes nothing). The output is right, so
// only a memory checker can tell. Expected: pass without memcheck; with
// settings.memcheck (plan-memcheck.json), fail with the invalid read named.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void silu_and_mul_oob_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, int64_t t, int d,
                                        float *sink) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > t * d) // off by one: thread t*d runs too
    return;
  int64_t row = i / d, col = i % d;
  float a = __bfloat162float(x[row * 2 * d + col]); // row == t: past the end of x
  float b = __bfloat162float(x[row * 2 * d + d + col]);
  float v = a / (1.f + __expf(-a)) * b;
  if (i < t * d)
    out[i] = __float2bfloat16(v);
  else if (v == 12345.f)
    *sink = v; // keeps the read alive; never true for finite inputs in practice
}

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  int64_t t = x.size(0);
  int d = x.size(1) / 2;
  int64_t n = t * d + 1;
  silu_and_mul_oob_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), t, d, nullptr);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
