// Production baseline for static_scaled_fp8_quant: the eager ATen form of
// vLLM's scaled_fp8_quant with a given (static) per-tensor scale:
//   out = e4m3fn(clamp(x / scale[0], -448, 448))
// at::div of the bf16 x by the one-element fp32 device tensor (computed in
// fp32, true division as the reference), clamp_, RNE cast by copy_ into out.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void static_scaled_fp8_quant(at::Tensor &out, const at::Tensor &x, const at::Tensor &scale) {
  out.copy_(at::div(x, scale).clamp_(-448.0, 448.0));
}
