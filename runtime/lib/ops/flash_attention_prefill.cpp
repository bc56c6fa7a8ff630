//===- flash_attention_prefill.cpp - generator, reference, tolerance ------===//
//
// Definition and entry point:
// suites/atrex-serve/ops/flash_attention_prefill.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t b = key(shape, "B"), t = key(shape, "T"), hq = key(shape, "Hq"),
          hk = key(shape, "Hk"), d = key(shape, "D");
  TensorMap m;
  m["q"] = bf16(g.randn({t, hq, d}));
  m["k"] = bf16(g.randn({t, hk, d}) * 2.0);
  m["v"] = bf16(g.randn({t, hk, d}));
  // B positive lengths summing to T: B-1 distinct cut points in [1, T-1].
  at::Tensor cuts = (g.randperm(t - 1) + 1).narrow(0, 0, b - 1).cpu();
  cuts = std::get<0>(cuts.sort());
  at::Tensor cu = at::cat(
      {at::zeros({1}, cuts.options()), cuts, at::full({1}, t, cuts.options())});
  int64_t maxLen =
      (cu.narrow(0, 1, b) - cu.narrow(0, 0, b)).max().item<int64_t>();
  m["cu_seqlens"] = cu.to(at::kInt).to(g.device).contiguous();
  m["max_seqlen"] = scalarI64(maxLen);
  m["scale"] = scalarF64(1.0 / std::sqrt(double(d)));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t b = key(shape, "B"), t = key(shape, "T"), hq = key(shape, "Hq"),
          hk = key(shape, "Hk"), d = key(shape, "D");
  double scale = get(in, "scale").item<double>();
  at::Tensor cu = get(in, "cu_seqlens").cpu().to(at::kLong);
  const at::Tensor &q = get(in, "q"), &k = get(in, "k"), &v = get(in, "v");
  at::Tensor o = at::empty({t, hq, d}, q.options().dtype(at::kFloat));
  constexpr int64_t kChunk =
      1024; // query rows per step, bounds the score matrix
  for (int64_t i = 0; i < b; ++i) {
    int64_t s0 = cu[i].item<int64_t>(), n = cu[i + 1].item<int64_t>() - s0;
    at::Tensor ks = f32(k.narrow(0, s0, n))
                        .repeat_interleave(hq / hk, 1)
                        .permute({1, 2, 0});
    at::Tensor vs = f32(v.narrow(0, s0, n))
                        .repeat_interleave(hq / hk, 1)
                        .permute({1, 0, 2});
    for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
      int64_t rows = std::min(kChunk, n - c0);
      at::Tensor qs =
          f32(q.narrow(0, s0 + c0, rows)).permute({1, 0, 2}); // [Hq, rows, D]
      at::Tensor sc = at::matmul(qs, ks) * scale;             // [Hq, rows, n]
      at::Tensor qi =
          at::arange(c0, c0 + rows, sc.options().dtype(at::kLong)).unsqueeze(1);
      at::Tensor kj =
          at::arange(0, n, sc.options().dtype(at::kLong)).unsqueeze(0);
      sc.masked_fill_(kj > qi, -std::numeric_limits<float>::infinity());
      at::Tensor oc = at::matmul(at::softmax(sc, -1), vs); // [Hq, rows, D]
      o.narrow(0, s0 + c0, rows).copy_(oc.permute({1, 0, 2}));
    }
  }
  TensorMap out;
  out["out"] = bf16(o);
  return out;
}
} // namespace

ATREX_REGISTER_OP(flash_attention_prefill, {{"out", bf16Attention()}}, generate,
                  reference);

} // namespace atrex::rt::ops
