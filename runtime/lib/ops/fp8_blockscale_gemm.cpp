//===- fp8_blockscale_gemm.cpp - generator, reference, tolerance ----------===//
//
// Definition and entry point: suites/atrex-serve/ops/fp8_blockscale_gemm.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t mm = key(shape, "M"), n = key(shape, "N"), kk = key(shape, "K");
  TensorMap m;
  auto [xq, sx] = quantGroup128(g.randn({mm, kk}) * g.rowScales(mm));
  auto [wq, sw] = quantBlock128(g.randn({n, kk}) / std::sqrt(double(kk)));
  m["xq"] = xq.contiguous();
  m["sx"] = sx.contiguous();
  m["wq"] = wq.contiguous();
  m["sw"] = sw.contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  at::Tensor x = dequantGroup128(get(in, "xq"), get(in, "sx"));
  at::Tensor w = dequantBlock128(get(in, "wq"), get(in, "sw"));
  out["out"] = bf16(at::matmul(x, w.t()));
  return out;
}
} // namespace

ATREX_REGISTER_OP(fp8_blockscale_gemm, {{"out", bf16Reduction()}}, generate,
                  reference);

} // namespace atrex::rt::ops
