//===- grouped_topk.cpp - grouped_topk: generator, reference, tolerance ---===//
//
// Definition and entry point: suites/atrex-serve/ops/grouped_topk.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <limits>

namespace atrex::rt::ops {
namespace {

constexpr int64_t kSubLevels = 4;

// Per row, the biased scores v as integer levels: a random permutation of the
// E experts times kSubLevels plus a random sub-level, so that every row's
// levels are distinct.
at::Tensor drawLevels(Gen &g, int64_t rows, int64_t e) {
  return at::argsort(g.rand({rows, e}), /*dim=*/int64_t(-1)) * kSubLevels +
         g.randint(0, kSubLevels, {rows, e});
}

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), e = key(shape, "E"), groups = key(shape, "G"),
          kept = key(shape, "TG");
  TensorMap m;
  // The load-balancing bias in [-0.2, 0.2): as large as the spread of the
  // scores, so that it decides groups and experts (a kernel that ignores it,
  // or weights with it, fails).
  at::Tensor bias = g.rand({e}) * 0.4 - 0.2;
  // No ties, with margin. The biased scores v = s + bias of a row are the
  // distinct levels L of drawLevels on a grid of step u = 0.5 / (kSubLevels E)
  // in (0.25, 0.75): experts differ by at least u (4.9e-4 at E = 256), and so
  // do group scores (sums of two levels) where they differ at all; rows whose
  // TG-th and (TG+1)-th group scores are equal are drawn again. fp32 errors of
  // the sigmoid and the sums are below 1e-6, so any fp32 evaluation order
  // picks the same groups and experts; scores in bf16 (ulp 2^-9 > u near 0.5)
  // do not.
  at::Tensor levels = drawLevels(g, t, e);
  if (kept < groups) {
    for (;;) {
      at::Tensor score =
          std::get<0>(levels.view({t, groups, e / groups}).topk(2, -1)).sum(-1);
      at::Tensor sorted = std::get<0>(score.sort(-1, /*descending=*/true));
      at::Tensor bad =
          sorted.select(1, kept - 1).eq(sorted.select(1, kept)).nonzero();
      if (bad.size(0) == 0)
        break;
      bad = bad.squeeze(1);
      levels.index_copy_(0, bad, drawLevels(g, bad.size(0), e));
    }
  }
  at::Tensor v =
      0.25 + (levels.to(at::kDouble) + 0.5) * (0.5 / double(kSubLevels * e));
  // s = v - bias in (0.05, 0.95): logits in about (-2.9, 2.9), where the
  // sigmoid is far from saturating (saturated scores would tie).
  at::Tensor s = v - bias.to(at::kDouble);
  m["gating_output"] = (at::log(s) - at::log1p(-s)).to(at::kFloat).contiguous();
  m["num_expert_group"] = scalarI64(groups);
  m["topk_group"] = scalarI64(kept);
  m["renormalize"] = scalarBool(true);
  m["routed_scaling_factor"] = scalarF64(2.5); // DeepSeek-V3
  m["e_score_correction_bias"] = bias.contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t t = key(shape, "T"), e = key(shape, "E"), groups = key(shape, "G"),
          kept = key(shape, "TG"), k = key(shape, "K");
  at::Tensor s = at::sigmoid(f32(get(in, "gating_output")));
  at::Tensor v = s + f32(get(in, "e_score_correction_bias"));
  at::Tensor groupScore =
      std::get<0>(v.view({t, groups, e / groups}).topk(2, -1)).sum(-1);
  at::Tensor keptGroups = std::get<1>(groupScore.topk(kept, -1));
  at::Tensor groupMask = at::zeros({t, groups}, v.options().dtype(at::kBool))
                             .scatter_(1, keptGroups, true);
  at::Tensor expertMask =
      groupMask.unsqueeze(-1).expand({t, groups, e / groups}).reshape({t, e});
  at::Tensor masked = v.masked_fill(expertMask.logical_not(),
                                    -std::numeric_limits<float>::infinity());
  at::Tensor ids =
      std::get<1>(masked.topk(k, -1, /*largest=*/true, /*sorted=*/true));
  at::Tensor w = s.gather(1, ids);
  w = w / w.sum(-1, true) * get(in, "routed_scaling_factor").item<double>();
  TensorMap out;
  out["topk_weights"] = w.contiguous();
  out["topk_ids"] = ids.to(at::kInt).contiguous();
  return out;
}
} // namespace

// The ids are exact: the inputs have no ties (see generate). The weights are
// fp32 throughout: sigmoid implementations differ by a few ulps and the sum
// of K weights by its order, far below 1e-5 relative; one bf16 rounding
// (2^-9) exceeds it.
ATREX_REGISTER_OP(grouped_topk,
                  {{"topk_weights", tol(1e-6, 1e-5, 0, 1e-5)},
                   {"topk_ids", exact()}},
                  generate, reference);

} // namespace atrex::rt::ops
