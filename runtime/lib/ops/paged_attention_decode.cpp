//===- paged_attention_decode.cpp - generator, reference, tolerance -------===//
//
// Definition and entry point:
// suites/atrex-serve/ops/paged_attention_decode.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &spec, const ShapeMap &shape) {
  int64_t b = key(shape, "B"), hq = key(shape, "Hq"), d = key(shape, "D"),
          l = key(shape, "L");
  std::vector<int64_t> kvShape = spec.findArg("key_cache")->shape(shape);
  int64_t nb = kvShape[0], bs = key(shape, "BS");
  int64_t maxBlocks = (l + bs - 1) / bs;
  TensorMap m;
  m["query"] = bf16(g.randn({b, hq, d}));
  m["key_cache"] = bf16(g.randn(kvShape) * 2.0);
  m["value_cache"] = bf16(g.randn(kvShape));
  // Context lengths in [1, L], the first one exactly L.
  at::Tensor lens = g.randint(1, l + 1, {b});
  lens.index_put_({0}, l);
  m["context_lens"] = lens.to(at::kInt).contiguous();
  m["block_tables"] = distinctBlockTables(g, b, maxBlocks, nb);
  m["scale"] = scalarF64(1.0 / std::sqrt(double(d)));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t b = key(shape, "B"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
          d = key(shape, "D"), bs = key(shape, "BS");
  double scale = get(in, "scale").item<double>();
  at::Tensor lens = get(in, "context_lens").cpu().to(at::kLong);
  at::Tensor tables = get(in, "block_tables").to(at::kLong);
  const at::Tensor &kc = get(in, "key_cache"), &vc = get(in, "value_cache");
  const at::Tensor &q = get(in, "query");
  at::Tensor o = at::empty({b, hq, d}, q.options().dtype(at::kFloat));
  for (int64_t i = 0; i < b; ++i) {
    int64_t n = lens[i].item<int64_t>();
    at::Tensor k = f32(pagedRows(kc, tables[i], n, bs)); // [n, Hk, D]
    at::Tensor v = f32(pagedRows(vc, tables[i], n, bs));
    k = k.repeat_interleave(hq / hk, 1).permute({1, 2, 0});       // [Hq, D, n]
    v = v.repeat_interleave(hq / hk, 1).permute({1, 0, 2});       // [Hq, n, D]
    at::Tensor s = at::matmul(f32(q[i]).unsqueeze(1), k) * scale; // [Hq, 1, n]
    o[i] = at::matmul(at::softmax(s, -1), v).squeeze(1);
  }
  TensorMap out;
  out["out"] = bf16(o);
  return out;
}
} // namespace

ATREX_REGISTER_OP(paged_attention_decode, {{"out", bf16Attention()}}, generate,
                  reference);

} // namespace atrex::rt::ops
