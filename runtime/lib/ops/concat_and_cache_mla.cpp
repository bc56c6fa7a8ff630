//===- concat_and_cache_mla.cpp - generator, reference, tolerance ---------===//
//
// Definition and entry point: suites/atrex-serve/ops/concat_and_cache_mla.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {
TensorMap generate(Gen &g, const OpSpec &spec, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), l = key(shape, "L"), r = key(shape, "R");
  std::vector<int64_t> cacheShape = spec.findArg("kv_cache")->shape(shape);
  int64_t slots = cacheShape[0] * cacheShape[1];
  TensorMap m;
  // kv_c and k_pe at different scales, so that a row written with the two
  // parts swapped or shifted shows.
  m["kv_c"] = bf16(g.randn({t, l}));
  m["k_pe"] = bf16(g.randn({t, r}) * 4.0);
  // The cache holds earlier tokens: every entry the operator does not write
  // must keep its value.
  m["kv_cache"] = bf16(g.randn(cacheShape));
  m["slot_mapping"] = slotMapping(g, t, slots);
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  const at::Tensor &slot = get(in, "slot_mapping");
  const at::Tensor &cache = get(in, "kv_cache");
  at::Tensor rows = at::cat({get(in, "kv_c"), get(in, "k_pe")}, 1);
  at::Tensor valid = slot.ge(0);
  at::Tensor out = cache.clone();
  out.view({cache.size(0) * cache.size(1), cache.size(2)})
      .index_copy_(0, slot.masked_select(valid), rows.index({valid}));
  TensorMap result;
  result["kv_cache_out"] = out.contiguous();
  return result;
}
} // namespace

// A copy: every cache entry, written or kept, is bit-exact.
ATREX_REGISTER_OP(concat_and_cache_mla, {{"kv_cache_out", exact()}}, generate,
                  reference);

} // namespace atrex::rt::ops
