//===- rms_norm.cpp - rms_norm: generator, reference, tolerance -----------===//
//
// Definition and entry point: suites/atrex-serve/ops/rms_norm.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), h = key(shape, "H");
  TensorMap m;
  m["x"] = bf16(g.randn({t, h}) * g.rowScales(t));
  m["w"] = bf16(1.0 + 0.5 * g.randn({h}));
  m["eps"] = scalarF64(1e-6);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  out["out"] = bf16(rmsNormF32(f32(get(in, "x")), get(in, "w"),
                               get(in, "eps").item<double>()));
  return out;
}
} // namespace

ATREX_REGISTER_OP(rms_norm, {{"out", bf16Elementwise()}}, generate, reference);

} // namespace atrex::rt::ops
