// Production baseline for merge_attn_states: the torch form of vLLM's
// merge_attn_states (its reference implementation, merge_attn_states_torch),
// elementwise ATen ops in fp32:
//   p, s = the LSEs with +inf read as -inf (FlashAttention-2 reports +inf for
//   an empty side), m = max(p, s); when both are -inf the token keeps the
//   prefix output and LSE -inf; otherwise
//   w_p = e^(p-m) / (e^(p-m) + e^(s-m)), w_s likewise,
//   output = w_p prefix_output + w_s suffix_output (fp32, one bf16 rounding),
//   output_lse = log(e^(p-m) + e^(s-m)) + m.
// The LSEs are [Hq, T], the outputs [T, Hq, D]: the weights are transposed
// to [T, Hq, 1]. Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

#include <limits>

void merge_attn_states(at::Tensor &output, at::Tensor &output_lse,
                       const at::Tensor &prefix_output, const at::Tensor &prefix_lse,
                       const at::Tensor &suffix_output, const at::Tensor &suffix_lse) {
  const double inf = std::numeric_limits<double>::infinity();
  auto finite_or_neg_inf = [&](const at::Tensor &lse) {
    at::Tensor l = lse.to(at::kFloat);
    return at::where(at::isposinf(l), at::full_like(l, -inf), l);
  };
  at::Tensor p = finite_or_neg_inf(prefix_lse);
  at::Tensor s = finite_or_neg_inf(suffix_lse);
  at::Tensor m = at::maximum(p, s);
  at::Tensor empty = at::isneginf(m); // both sides empty
  at::Tensor shift = at::where(empty, at::zeros_like(m), m);
  at::Tensor ep = at::exp(p - shift), es = at::exp(s - shift);
  at::Tensor sum = ep + es;
  at::Tensor wp = at::where(empty, at::ones_like(m), ep / sum);
  at::Tensor ws = at::where(empty, at::zeros_like(m), es / sum);
  output.copy_(prefix_output.to(at::kFloat) * wp.t().unsqueeze(-1) +
               suffix_output.to(at::kFloat) * ws.t().unsqueeze(-1));
  output_lse.copy_(at::where(empty, m, at::log(sum) + m));
}
