// Honest naive static_scaled_fp8_quant: one thread per element,
// out = e4m3fn(clamp(x / scale[0], -448, 448)) with the scale read from device
// memory (a one-element fp32 tensor, as vLLM passes it). IEEE division as the
// reference does on a device tensor (vLLM multiplies by 1 / scale instead);
// round-to-nearest-even, saturation to the finite range (moot after the clamp).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

constexpr float kFp8Max = 448.f;

__global__ void static_scaled_fp8_quant_kernel(__nv_fp8_storage_t *out, const __nv_bfloat16 *x,
                                               const float *scale, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = __bfloat162float(x[i]) / *scale;
  v = fminf(fmaxf(v, -kFp8Max), kFp8Max);
  out[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}

void static_scaled_fp8_quant(at::Tensor &out, const at::Tensor &x, const at::Tensor &scale) {
  TORCH_CHECK(x.is_contiguous() && out.is_contiguous(), "contiguous tensors expected");
  TORCH_CHECK(scale.numel() == 1 && scale.scalar_type() == at::kFloat, "fp32 scale [1] expected");
  int64_t n = x.numel();
  if (n == 0)
    return;
  static_scaled_fp8_quant_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      reinterpret_cast<__nv_fp8_storage_t *>(out.data_ptr()),
      reinterpret_cast<const __nv_bfloat16 *>(x.data_ptr()), scale.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
