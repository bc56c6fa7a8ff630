// Production baseline for fused_moe: the (token, slot) pairs are sorted by
// expert (stable argsort of topk_ids) and the two expert GEMMs run as CUTLASS
// grouped GEMMs of libtorch (at::_grouped_mm, bf16, sm_90) with per-expert row
// offsets (cumulative counts, computed on the device: no host sync):
//   h = _grouped_mm(x[pairs], w1^T) [P, 2I],  a = silu(h[:, :I]) * h[:, I:],
//   y = _grouped_mm(a, w2^T) [P, H],  out = sum over slots of w * y (fp32
//   index_add), rounded to bf16.
// The intermediates are bf16 (the reference keeps fp32; inside the MoE
// tolerance). If _grouped_mm is unavailable or refuses the shapes, a
// per-expert loop of at::matmul (host sync for the routed token lists) is
// used. Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

static void per_expert(at::Tensor &out, const at::Tensor &x, const at::Tensor &w1,
                       const at::Tensor &w2, const at::Tensor &topk_weights,
                       const at::Tensor &topk_ids) {
  int64_t experts = w1.size(0), inter = w1.size(1) / 2;
  at::Tensor acc = at::zeros({x.size(0), x.size(1)}, x.options().dtype(at::kFloat));
  at::Tensor ids = topk_ids.to(at::kLong);
  for (int64_t e = 0; e < experts; ++e) {
    at::Tensor nz = (ids == e).nonzero();
    if (nz.size(0) == 0)
      continue;
    at::Tensor tok = nz.select(1, 0), slot = nz.select(1, 1);
    at::Tensor h = at::matmul(x.index_select(0, tok), w1[e].t());
    at::Tensor a = at::silu(h.narrow(1, 0, inter)) * h.narrow(1, inter, inter);
    at::Tensor y = at::matmul(a, w2[e].t()).to(at::kFloat);
    acc.index_add_(0, tok, y * topk_weights.index({tok, slot}).unsqueeze(1));
  }
  out.copy_(acc);
}

void fused_moe(at::Tensor &out, const at::Tensor &x, const at::Tensor &w1, const at::Tensor &w2,
               const at::Tensor &topk_weights, const at::Tensor &topk_ids) {
  int64_t tokens = x.size(0), h = x.size(1), experts = w1.size(0), inter = w1.size(1) / 2;
  int64_t topk = topk_ids.size(1);
  try {
    at::Tensor ids = topk_ids.flatten().to(at::kLong);
    at::Tensor order = at::argsort(ids, /*stable=*/true);
    at::Tensor tok = at::floor_divide(order, topk);
    at::Tensor counts = at::zeros({experts}, ids.options()).index_add_(0, ids, at::ones_like(ids));
    at::Tensor offs = counts.cumsum(0).to(at::kInt);
    at::Tensor hgu = at::_grouped_mm(x.index_select(0, tok), w1.transpose(-2, -1), offs);
    at::Tensor a = at::silu(hgu.narrow(-1, 0, inter)) * hgu.narrow(-1, inter, inter);
    at::Tensor y = at::_grouped_mm(a, w2.transpose(-2, -1), offs);
    at::Tensor wts = topk_weights.flatten().index_select(0, order).unsqueeze(1);
    at::Tensor acc = at::zeros({tokens, h}, x.options().dtype(at::kFloat));
    acc.index_add_(0, tok, y.to(at::kFloat) * wts);
    out.copy_(acc);
  } catch (const c10::Error &) {
    per_expert(out, x, w1, w2, topk_weights, topk_ids);
  }
}
