//===- fp8_per_tensor_gemm.cpp - generator, reference, tolerance ----------===//
//
// Definition and entry point: suites/atrex-serve/ops/fp8_per_tensor_gemm.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

// Per-tensor e4m3 quantization as a static FP8 checkpoint stores it: one
// scale amax / 448, so the largest element is exactly +-448.
std::pair<at::Tensor, at::Tensor> quantPerTensor(const at::Tensor &x) {
  at::Tensor s = (x.abs().amax() / kFp8Max).reshape({1});
  at::Tensor q = saturateE4m3(x / s);
  return {q.contiguous(), s.contiguous()};
}

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t mm = key(shape, "M"), n = key(shape, "N"), kk = key(shape, "K");
  TensorMap m;
  // Rows 2^-4 .. 2^4 under one tensor-wide scale: the largest row reaches
  // +-448, the small rows' tails the e4m3 subnormals.
  auto [a, sa] = quantPerTensor(g.randn({mm, kk}) * g.rowScales(mm));
  auto [b, sb] = quantPerTensor(g.randn({n, kk}) / std::sqrt(double(kk)));
  m["a"] = a;
  m["scale_a"] = sa;
  m["b"] = b;
  m["scale_b"] = sb;
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  at::Tensor acc = at::matmul(f32(get(in, "a")), f32(get(in, "b")).t());
  TensorMap out;
  out["out"] = bf16(acc * get(in, "scale_a") * get(in, "scale_b"));
  return out;
}
} // namespace

// Products of two e4m3 values are exact in fp32; what remains is the order
// of the fp32 additions and the one bf16 rounding: bf16Reduction, as
// gemm_bf16.
ATREX_REGISTER_OP(fp8_per_tensor_gemm, {{"out", bf16Reduction()}}, generate,
                  reference);

} // namespace atrex::rt::ops
