//===- softmax.cpp - softmax: generator, reference, tolerance -------------===//
//
// Definition and entry point: suites/atrex-serve/ops/softmax.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), v = key(shape, "V");
  TensorMap m;
  // Rows of spread 2^-1 .. 2^4 around an offset that cycles through three
  // kinds of row (row 0 first): +100 .. +400, where exp(x) overflows fp32
  // (above 88.7); -400 .. -100, where exp(x) underflows (below -103.3) or
  // keeps only denormal precision; -8 .. +8 (temperature-1 logits). A softmax
  // that does not subtract the row maximum gets Inf/Inf in the first kind and
  // mostly 0/0 in the second (a naive kernel without it, 64 x 128256 on the
  // H200: 66% of the probabilities NaN).
  at::Tensor spread = at::exp2(g.rand({t, 1}) * 5.0 - 1.0);
  at::Tensor magnitude = g.rand({t, 1});
  at::Tensor regime = at::arange(t, g.f32()).remainder(3.0).unsqueeze(1);
  at::Tensor offset =
      at::where(regime == 0.0, 100.0 + 300.0 * magnitude,
                at::where(regime == 1.0, -100.0 - 300.0 * magnitude,
                          16.0 * magnitude - 8.0));
  m["logits"] = (g.randn({t, v}) * spread + offset).contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  out["probs"] = at::softmax(f32(get(in, "logits")), -1).contiguous();
  return out;
}
} // namespace

// fp32 throughout: exp within a few ulp (fast-math __expf: ~100 ulp near
// -87, 6e-6 relative) and the row sum accumulated in any order (relative error
// ~sqrt(V) ulp) keep every probability within 1e-4 of itself; a bf16 or fp16
// intermediate (>= 1e-3 relative) does not. atol 1e-37 (above every fp32
// denormal, < 1.18e-38) admits the tiny probabilities that a kernel built
// with -ftz flushes to zero, and nothing else.
ATREX_REGISTER_OP(softmax, {{"probs", tol(1e-37, 1e-4, 0, 1e-4)}}, generate,
                  reference);

} // namespace atrex::rt::ops
