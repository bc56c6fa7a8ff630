//===- rotary_embedding.cpp - generator, reference, tolerance -------------===//
//
// Definition and entry point: suites/atrex-serve/ops/rotary_embedding.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
          d = key(shape, "D"), p = key(shape, "P");
  TensorMap m;
  m["positions"] = g.randint(0, p, {t});
  m["query"] = bf16(g.randn({t, hq * d}) * g.rowScales(t));
  m["key"] = bf16(g.randn({t, hk * d}) * g.rowScales(t));
  m["head_size"] = scalarI64(d);
  at::Tensor invFreq =
      1.0 / at::pow(10000.0, at::arange(0, d, 2, g.f32().dtype(at::kDouble)) /
                                 double(d));
  at::Tensor ang =
      at::outer(at::arange(p, g.f32().dtype(at::kDouble)), invFreq);
  m["cos_sin_cache"] =
      at::cat({ang.cos(), ang.sin()}, -1).to(at::kFloat).contiguous();
  m["is_neox"] = scalarBool(true);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  TensorMap out;
  int64_t d = key(shape, "D");
  at::Tensor cs =
      get(in, "cos_sin_cache").index_select(0, get(in, "positions"));
  at::Tensor cos = cs.narrow(1, 0, d / 2), sin = cs.narrow(1, d / 2, d / 2);
  out["query_out"] = ropeNeox(get(in, "query"), key(shape, "Hq"), d, cos, sin);
  out["key_out"] = ropeNeox(get(in, "key"), key(shape, "Hk"), d, cos, sin);
  return out;
}
} // namespace

ATREX_REGISTER_OP(rotary_embedding,
                  {{"query_out", bf16Elementwise()},
                   {"key_out", bf16Elementwise()}},
                  generate, reference);

} // namespace atrex::rt::ops
