// Production baseline for dynamic_per_token_quant_fp8: the eager ATen form of
// vLLM's dynamic_per_token_scaled_fp8_quant (its torch path), written as the
// reference states it:
//   s = max(amax(|x[t, :]|), eps) / 448  (fp32; amax of bf16 values is exact)
//   out_q = e4m3fn(clamp(x / s, -448, 448))  (x / s in fp32: ATen promotes
//   the bf16 x, true division by the device tensor s; RNE cast by copy_)
// ATen's abs/amax reduction, clamp_min, div, clamp; out_s written by copy_.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void dynamic_per_token_quant_fp8(at::Tensor &out_q, at::Tensor &out_s, const at::Tensor &x,
                                 double eps) {
  at::Tensor s = at::clamp_min(x.abs().amax(-1, /*keepdim=*/true).to(at::kFloat), eps) / 448.0;
  out_q.copy_(at::div(x, s).clamp_(-448.0, 448.0));
  out_s.copy_(s.view_as(out_s));
}
