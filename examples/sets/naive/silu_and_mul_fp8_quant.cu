// Honest naive silu_and_mul_fp8_quant: one thread per output element,
// y = silu(a) * b = a / (1 + exp(-a)) * b in fp32 (a = x[t, c], b = x[t, D + c]),
// out = e4m3fn(clamp(y / scale[0], -448, 448)), the scale read from device
// memory (a one-element fp32 tensor). y is not rounded to bf16 in between
// (vLLM's fused kernel is; the tolerance allows it).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr float kFp8Max = 448.f;

__global__ void silu_and_mul_fp8_quant_kernel(__nv_fp8_storage_t *out, const __nv_bfloat16 *x,
                                              const float *scale, int64_t t, int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= t * d)
    return;
  int64_t row = i / d, col = i % d;
  float a = __bfloat162float(x[row * 2 * d + col]);
  float b = __bfloat162float(x[row * 2 * d + d + col]);
  float v = a / (1.f + expf(-a)) * b / *scale;
  v = fminf(fmaxf(v, -kFp8Max), kFp8Max);
  out[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}

void silu_and_mul_fp8_quant(at::Tensor &out, const at::Tensor &x, const at::Tensor &scale) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  TORCH_CHECK(scale.numel() == 1 && scale.scalar_type() == at::kFloat, "fp32 scale [1] expected");
  int64_t t = x.size(0);
  int d = x.size(1) / 2;
  int64_t n = t * d;
  if (n == 0)
    return;
  silu_and_mul_fp8_quant_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_fp8_storage_t *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), scale.data_ptr<float>(), t, d);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
