//===- topk_softmax.cpp - topk_softmax: generator, reference, tolerance ---===//
//
// Definition and entry point: suites/atrex-serve/ops/topk_softmax.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), e = key(shape, "E");
  TensorMap m;
  // Distinct logits (gaps >= 0.05 before scaling) so that top-k has no ties;
  // rows scaled up to 16x reach the range where exp() must be stabilized.
  at::Tensor ranks =
      at::argsort(g.rand({t, e}), /*dim=*/int64_t(-1), /*descending=*/false)
          .to(at::kFloat);
  at::Tensor rowScale = at::exp2(g.rand({t, 1}) * 6.0 - 2.0);
  m["gating_output"] =
      ((ranks * 0.1 - 0.05 * e + g.rand({t, e}) * 0.05) * rowScale)
          .contiguous();
  m["renormalize"] = scalarBool(key(shape, "R") != 0);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  TensorMap out;
  at::Tensor p = at::softmax(f32(get(in, "gating_output")), -1);
  auto [w, ids] =
      p.topk(key(shape, "K"), -1, /*largest=*/true, /*sorted=*/true);
  if (get(in, "renormalize").item<bool>())
    w = w / w.sum(-1, true);
  out["topk_weights"] = w.contiguous();
  out["topk_ids"] = ids.to(at::kInt).contiguous();
  return out;
}
} // namespace

ATREX_REGISTER_OP(topk_softmax,
                  {{"topk_weights", tol(1e-6, 1e-4, 0, 1e-4)},
                   {"topk_ids", exact()}},
                  generate, reference);

} // namespace atrex::rt::ops
