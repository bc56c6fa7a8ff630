//===- mla_decode.cpp - mla_decode: generator, reference, tolerance -------===//
//
// Definition and entry point: suites/atrex-serve/ops/mla_decode.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &spec, const ShapeMap &shape) {
  int64_t b = key(shape, "B"), h = key(shape, "H"), lat = key(shape, "L"),
          rope = key(shape, "R"), s = key(shape, "S");
  std::vector<int64_t> kvShape = spec.findArg("kv_cache")->shape(shape);
  int64_t nb = kvShape[0], bs = key(shape, "BS");
  int64_t maxBlocks = (s + bs - 1) / bs;
  TensorMap m;
  m["q_nope"] = bf16(g.randn({b, h, lat}));
  m["q_pe"] = bf16(g.randn({b, h, rope}));
  m["kv_cache"] = bf16(g.randn(kvShape));
  // Context lengths in [1, S]: the first one exactly S, the last one (B > 1)
  // a single token, whose output is that token's latent row.
  at::Tensor lens = g.randint(1, s + 1, {b});
  lens.index_put_({0}, s);
  if (b > 1)
    lens.index_put_({b - 1}, 1);
  m["context_lens"] = lens.to(at::kInt).contiguous();
  m["block_tables"] = distinctBlockTables(g, b, maxBlocks, nb);
  // DeepSeek-V3's softmax scale, 192^-0.5 times the YaRN mscale^2
  // (0.1 ln 40 + 1)^2: 0.1352 at L + R = 576, where unit q and cache rows give
  // logits of standard deviation 3.2 (peaked rows, exp() must be stabilized);
  // scaled by sqrt(576 / (L + R)) so that smaller test shapes keep that spread.
  m["scale"] = scalarF64(0.1352 * std::sqrt(576.0 / double(lat + rope)));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t b = key(shape, "B"), h = key(shape, "H"), lat = key(shape, "L"),
          rope = key(shape, "R"), bs = key(shape, "BS");
  double scale = get(in, "scale").item<double>();
  at::Tensor lens = get(in, "context_lens").cpu().to(at::kLong);
  at::Tensor tables = get(in, "block_tables").to(at::kLong);
  const at::Tensor &kv = get(in, "kv_cache");
  const at::Tensor &qn = get(in, "q_nope"), &qp = get(in, "q_pe");
  at::Tensor o = at::empty({b, h, lat}, qn.options().dtype(at::kFloat));
  for (int64_t i = 0; i < b; ++i) {
    int64_t n = lens[i].item<int64_t>();
    at::Tensor rows = f32(pagedRows(kv, tables[i], n, bs)); // [n, L+R]
    at::Tensor c = rows.narrow(1, 0, lat), kpe = rows.narrow(1, lat, rope);
    at::Tensor sc =
        (at::matmul(f32(qn[i]), c.t()) + at::matmul(f32(qp[i]), kpe.t())) *
        scale; // [H, n]
    o[i] = at::matmul(at::softmax(sc, -1), c);
  }
  TensorMap out;
  out["out"] = bf16(o);
  return out;
}
} // namespace

// Attention with bf16 probabilities before P V, as paged_attention_decode.
ATREX_REGISTER_OP(mla_decode, {{"out", bf16Attention()}}, generate, reference);

} // namespace atrex::rt::ops
