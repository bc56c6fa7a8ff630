//===- gemm_bf16.cpp - gemm_bf16: generator, reference, tolerance ---------===//
//
// Definition and entry point: suites/atrex-serve/ops/gemm_bf16.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t mm = key(shape, "M"), n = key(shape, "N"), kk = key(shape, "K");
  TensorMap m;
  m["x"] = bf16(g.randn({mm, kk}) * g.rowScales(mm));
  m["w"] = bf16(g.randn({n, kk}) / std::sqrt(double(kk)));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  out["out"] = bf16(at::matmul(f32(get(in, "x")), f32(get(in, "w")).t()));
  return out;
}
} // namespace

ATREX_REGISTER_OP(gemm_bf16, {{"out", bf16Reduction()}}, generate, reference);

} // namespace atrex::rt::ops
