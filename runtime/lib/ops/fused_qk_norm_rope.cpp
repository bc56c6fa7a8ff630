//===- fused_qk_norm_rope.cpp - generator, reference, tolerance -----------===//
//
// Definition and entry point: suites/atrex-serve/ops/fused_qk_norm_rope.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
          d = key(shape, "D"), p = key(shape, "P");
  int64_t heads = hq + 2 * hk;
  TensorMap m;
  // Every head of every token has its own scale 2^-4 .. 2^4 (the per-head
  // norm must not be a per-token one); the v heads are random and must come
  // back bit-identical.
  m["qkv"] =
      bf16((g.randn({t, heads, d}) * g.rowScales(t * heads).view({t, heads, 1}))
               .view({t, heads * d}));
  m["num_heads_q"] = scalarI64(hq);
  m["num_heads_k"] = scalarI64(hk);
  m["num_heads_v"] = scalarI64(hk);
  m["head_dim"] = scalarI64(d);
  m["eps"] = scalarF64(1e-6); // Qwen3's rms_norm_eps
  // Distinct weights for q and k (swapping them must fail).
  m["q_weight"] = bf16(1.0 + 0.5 * g.randn({d}));
  m["k_weight"] = bf16(1.0 + 0.5 * g.randn({d}));
  // Qwen3's rope_theta 1e6; the rows differ per position, the first and last
  // rows (0 and P-1) are among the positions when T >= 2.
  at::Tensor invFreq =
      1.0 /
      at::pow(1e6, at::arange(0, d, 2, g.f32().dtype(at::kDouble)) / double(d));
  at::Tensor ang =
      at::outer(at::arange(p, g.f32().dtype(at::kDouble)), invFreq);
  m["cos_sin_cache"] =
      at::cat({ang.cos(), ang.sin()}, -1).to(at::kFloat).contiguous();
  m["is_neox"] = scalarBool(true);
  at::Tensor pos = g.randint(0, p, {t});
  if (t >= 2) {
    at::Tensor perm = g.randperm(t);
    pos.index_fill_(0, perm.narrow(0, 0, 1), 0);
    pos.index_fill_(0, perm.narrow(0, 1, 1), p - 1);
  }
  m["position_ids"] = pos.contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
          d = key(shape, "D");
  double eps = get(in, "eps").item<double>();
  at::Tensor x = f32(get(in, "qkv")).view({t, hq + 2 * hk, d});
  at::Tensor cs =
      get(in, "cos_sin_cache").index_select(0, get(in, "position_ids"));
  at::Tensor cos = cs.narrow(1, 0, d / 2), sin = cs.narrow(1, d / 2, d / 2);
  // Normalized in fp32, rotated in fp32 (ropeNeox keeps the input's dtype),
  // rounded once.
  at::Tensor q = rmsNormF32(x.narrow(1, 0, hq), get(in, "q_weight"), eps);
  at::Tensor k = rmsNormF32(x.narrow(1, hq, hk), get(in, "k_weight"), eps);
  at::Tensor qr = ropeNeox(q.reshape({t, hq * d}), hq, d, cos, sin);
  at::Tensor kr = ropeNeox(k.reshape({t, hk * d}), hk, d, cos, sin);
  at::Tensor v =
      get(in, "qkv").view({t, hq + 2 * hk, d}).narrow(1, hq + hk, hk);
  TensorMap out;
  out["qkv_out"] =
      at::cat({bf16(qr.view({t, hq, d})), bf16(kr.view({t, hk, d})), v}, 1)
          .view({t, (hq + 2 * hk) * d})
          .contiguous();
  return out;
}
} // namespace

// bf16 outputs computed in fp32 and rounded once, as rms_norm and
// rotary_embedding (bf16Elementwise); the v heads are copies and match
// exactly, a wrong weight, head or position is off by O(1).
ATREX_REGISTER_OP(fused_qk_norm_rope, {{"qkv_out", bf16Elementwise()}},
                  generate, reference);

} // namespace atrex::rt::ops
