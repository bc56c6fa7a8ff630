// Production baseline for grouped_topk: vLLM's grouped_topk torch
// implementation (DeepSeek-V3's biased grouped top-k, scoring "sigmoid"),
// ATen ops in fp32:
//   s = sigmoid(gating_output), v = s + e_score_correction_bias;
//   group score = sum of the top-2 v of the group's E/G experts (topk + sum);
//   the topk_group best groups kept (topk, scatter_ into a group mask);
//   topk_ids = topk(K, sorted) of v with the other groups' experts at -inf;
//   topk_weights = s of those experts, divided by their sum when renormalize,
//   times routed_scaling_factor.
// No host sync. Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

#include <limits>

void grouped_topk(at::Tensor &topk_weights, at::Tensor &topk_ids, const at::Tensor &gating_output,
                  int64_t num_expert_group, int64_t topk_group, bool renormalize,
                  double routed_scaling_factor, const at::Tensor &e_score_correction_bias) {
  int64_t tokens = gating_output.size(0), experts = gating_output.size(1);
  int64_t groups = num_expert_group, per_group = experts / groups, k = topk_ids.size(1);
  at::Tensor s = at::sigmoid(gating_output.to(at::kFloat));
  at::Tensor v = s + e_score_correction_bias.to(at::kFloat);
  at::Tensor group_score = std::get<0>(v.view({tokens, groups, per_group}).topk(2, -1)).sum(-1);
  at::Tensor kept = std::get<1>(group_score.topk(topk_group, -1));
  at::Tensor group_mask =
      at::zeros({tokens, groups}, v.options().dtype(at::kBool)).scatter_(1, kept, true);
  at::Tensor expert_mask =
      group_mask.unsqueeze(-1).expand({tokens, groups, per_group}).reshape({tokens, experts});
  at::Tensor masked =
      v.masked_fill(expert_mask.logical_not(), -std::numeric_limits<float>::infinity());
  at::Tensor ids = std::get<1>(masked.topk(k, -1, /*largest=*/true, /*sorted=*/true));
  at::Tensor w = s.gather(1, ids);
  if (renormalize)
    w = w / w.sum(-1, /*keepdim=*/true);
  topk_weights.copy_(w * routed_scaling_factor);
  topk_ids.copy_(ids);
}
