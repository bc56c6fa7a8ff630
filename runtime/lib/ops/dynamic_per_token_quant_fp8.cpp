//===- dynamic_per_token_quant_fp8.cpp - generator, reference, tolerance --===//
//
// Definition and entry point:
// suites/atrex-serve/ops/dynamic_per_token_quant_fp8.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {
TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), h = key(shape, "H");
  TensorMap m;
  // Per-token scales spanning 2^-8 .. 2^8 so that scale handling matters.
  at::Tensor rowScale = at::exp2(g.rand({t, 1}) * 16.0 - 8.0);
  m["x"] = bf16(g.randn({t, h}) * rowScale);
  m["eps"] = scalarF64(1e-10);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  at::Tensor x = f32(get(in, "x"));
  at::Tensor s = at::clamp_min(x.abs().amax(-1, /*keepdim=*/true),
                               get(in, "eps").item<double>()) /
                 kFp8Max;
  TensorMap out;
  out["out_q"] = saturateE4m3(x / s).contiguous();
  out["out_s"] = s.contiguous();
  return out;
}
} // namespace

// One e4m3 ulp is at most 1/8 of the value; 2^-9 is the smallest subnormal
// (as per_token_group_quant_fp8); the scales are exact up to fp32 rounding.
ATREX_REGISTER_OP(dynamic_per_token_quant_fp8,
                  {{"out_q", tol(1.0 / 512, 0.125, 0, 2e-2)},
                   {"out_s", tol(0, 1e-6, 0, 1e-6)}},
                  generate, reference);

} // namespace atrex::rt::ops
