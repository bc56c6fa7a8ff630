//===- static_scaled_fp8_quant.cpp - generator, reference, tolerance ------===//
//
// Definition and entry point:
// suites/atrex-serve/ops/static_scaled_fp8_quant.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {
TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), h = key(shape, "H");
  TensorMap m;
  // Rows 2^-4 .. 2^4 under one tensor-wide scale: the small rows reach the
  // e4m3 subnormals. The given (calibrated) scale covers 0.5 .. 0.75 of the
  // absolute maximum, so the largest values saturate at +-448.
  at::Tensor x = bf16(g.randn({t, h}) * g.rowScales(t));
  m["x"] = x;
  m["scale"] = calibratedFp8Scale(g, x);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  at::Tensor x = f32(get(in, "x"));
  TensorMap out;
  out["out"] = saturateE4m3(x / get(in, "scale")).contiguous();
  return out;
}
} // namespace

// One e4m3 ulp is at most 1/8 of the value; 2^-9 is the smallest subnormal
// (as per_token_group_quant_fp8). vLLM multiplies by the fp32 reciprocal of
// the scale instead of dividing: one fp32 ulp apart, which moves a value
// across an e4m3 rounding tie rarely, and then by one e4m3 ulp.
ATREX_REGISTER_OP(static_scaled_fp8_quant,
                  {{"out", tol(1.0 / 512, 0.125, 0, 2e-2)}}, generate,
                  reference);

} // namespace atrex::rt::ops
