//===- gelu_tanh_and_mul.cpp - generator, reference, tolerance ------------===//
//
// Definition and entry point: suites/atrex-serve/ops/gelu_tanh_and_mul.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), d = key(shape, "D");
  TensorMap m;
  // Gate values reach |a| ~ 100 in scaled rows: the tanh saturates on both
  // sides (gelu -> a and gelu -> 0) as well as the near-linear middle.
  m["x"] = bf16(g.randn({t, 2 * d}) * 2.0 * g.rowScales(t));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  TensorMap out;
  at::Tensor x = f32(get(in, "x"));
  int64_t d = key(shape, "D");
  out["out"] = bf16(at::gelu(x.narrow(1, 0, d), "tanh") * x.narrow(1, d, d));
  return out;
}
} // namespace

// fp32 math rounded once to bf16 (bf16Elementwise). vLLM's kernel rounds
// gelu_tanh(a) to bf16 before the product: a second bf16 rounding, which the
// same bound admits.
ATREX_REGISTER_OP(gelu_tanh_and_mul, {{"out", bf16Elementwise()}}, generate,
                  reference);

} // namespace atrex::rt::ops
