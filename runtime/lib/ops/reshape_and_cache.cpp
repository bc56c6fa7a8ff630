//===- reshape_and_cache.cpp - generator, reference, tolerance ------------===//
//
// Definition and entry point: suites/atrex-serve/ops/reshape_and_cache.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {
TensorMap generate(Gen &g, const OpSpec &spec, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), hk = key(shape, "Hk"), d = key(shape, "D");
  std::vector<int64_t> cacheShape = spec.findArg("key_cache")->shape(shape);
  int64_t slots = cacheShape[0] * cacheShape[1];
  TensorMap m;
  m["key"] = bf16(g.randn({t, hk, d}));
  m["value"] = bf16(g.randn({t, hk, d}));
  // The caches hold earlier tokens: every entry the operator does not write
  // must keep its value.
  m["key_cache"] = bf16(g.randn(cacheShape));
  m["value_cache"] = bf16(g.randn(cacheShape));
  m["slot_mapping"] = slotMapping(g, t, slots);
  return m;
}

at::Tensor writeRows(const at::Tensor &cache, const at::Tensor &rows,
                     const at::Tensor &slot) {
  at::Tensor out = cache.clone();
  at::Tensor valid = slot.ge(0);
  int64_t slots = cache.size(0) * cache.size(1);
  out.view({slots, cache.size(2), cache.size(3)})
      .index_copy_(0, slot.masked_select(valid), rows.index({valid}));
  return out.contiguous();
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  const at::Tensor &slot = get(in, "slot_mapping");
  TensorMap out;
  out["key_cache_out"] = writeRows(get(in, "key_cache"), get(in, "key"), slot);
  out["value_cache_out"] =
      writeRows(get(in, "value_cache"), get(in, "value"), slot);
  return out;
}
} // namespace

// A copy: every cache entry, written or kept, is bit-exact.
ATREX_REGISTER_OP(reshape_and_cache,
                  {{"key_cache_out", exact()}, {"value_cache_out", exact()}},
                  generate, reference);

} // namespace atrex::rt::ops
