//===- silu_and_mul.cpp - silu_and_mul: generator, reference, tolerance ---===//
//
// Definition and entry point: suites/atrex-serve/ops/silu_and_mul.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), d = key(shape, "D");
  TensorMap m;
  m["x"] = bf16(g.randn({t, 2 * d}) * 2.0 * g.rowScales(t));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  out["out"] = bf16(siluAndMulF32(get(in, "x")));
  return out;
}
} // namespace

ATREX_REGISTER_OP(silu_and_mul, {{"out", bf16Elementwise()}}, generate,
                  reference);

} // namespace atrex::rt::ops
