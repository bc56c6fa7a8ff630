// Honest naive gelu_tanh_and_mul: one thread per output element, fp32 math,
// tanh-approximated gelu. Expected dynamic verdict: adopted.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>

__global__ void gelu_tanh_and_mul_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *x, int64_t t,
                                         int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= t * d)
    return;
  int64_t row = i / d, col = i % d;
  float a = __bfloat162float(x[row * 2 * d + col]);
  float b = __bfloat162float(x[row * 2 * d + d + col]);
  const float beta = 0.7978845608028654f; // sqrt(2 / pi)
  const float kappa = 0.044715f;
  float gelu = 0.5f * a * (1.f + tanhf(beta * (a + kappa * a * a * a)));
  out[i] = __float2bfloat16(gelu * b);
}

void gelu_tanh_and_mul(at::Tensor &out, const at::Tensor &x) {
  int64_t t = x.size(0);
  int d = x.size(1) / 2;
  int64_t n = t * d;
  gelu_tanh_and_mul_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_bfloat16 *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), t, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
