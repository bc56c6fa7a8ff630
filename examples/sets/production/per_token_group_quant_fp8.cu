// Production baseline for per_token_group_quant_fp8: the reference's eager
// ATen expression (fp32 absmax per group, s = max(absmax, eps) / 448,
// q = e4m3fn(clamp(x / s, -448, 448))), copied into out_q / out_s.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void per_token_group_quant_fp8(at::Tensor &out_q, at::Tensor &out_s, const at::Tensor &x,
                               int64_t group_size, double eps) {
  at::Tensor xf = x.to(at::kFloat).reshape({-1, x.size(-1) / group_size, group_size});
  at::Tensor s = at::clamp_min(xf.abs().amax(-1), eps) / 448.0;
  at::Tensor q = (xf / s.unsqueeze(-1)).clamp(-448.0, 448.0).to(at::kFloat8_e4m3fn);
  out_q.copy_(q.view_as(out_q));
  out_s.copy_(s.view_as(out_s));
}
