// Production baseline for topk_softmax: ATen softmax (fp32) and topk (sorted,
// largest first), optional renormalization, copied into the outputs (ids
// converted to int32). Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void topk_softmax(at::Tensor &topk_weights, at::Tensor &topk_ids, const at::Tensor &gating_output,
                  bool renormalize) {
  at::Tensor p = at::softmax(gating_output.to(at::kFloat), -1);
  auto [w, ids] = p.topk(topk_weights.size(-1), -1, /*largest=*/true, /*sorted=*/true);
  if (renormalize)
    w = w / w.sum(-1, /*keepdim=*/true);
  topk_weights.copy_(w);
  topk_ids.copy_(ids);
}
