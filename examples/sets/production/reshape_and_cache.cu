// Production baseline for reshape_and_cache: the torch form of vLLM's KV-cache
// write (the caches viewed as [NB * BS, Hk * D] rows, one index_copy_ of the
// key rows and one of the value rows at slot_mapping), without a host sync:
// padding tokens (slot < 0) must write nothing, and index_copy_ takes no
// negative index, so each padding token is redirected to the first valid
// token (the same slot and the same row: a duplicate write of identical
// bytes). When no token is valid every token rewrites slot 0 with the row it
// already holds (read before the write, in stream order). The first valid
// token comes from argmax over the 0/1 validity (the first maximum).
// ATen kernels: ge, argmax, where, index_select, index_copy_.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

// Writes rows[t] to cache row dst[t] for every token; keep[t] is false only
// when no token is valid (then dst[t] = 0 and the row written is row 0's).
static void write_rows(at::Tensor &cache, const at::Tensor &rows, const at::Tensor &src,
                       const at::Tensor &dst, const at::Tensor &keep) {
  int64_t tokens = src.size(0);
  at::Tensor flat = cache.view({cache.size(0) * cache.size(1), -1});
  at::Tensor r = rows.reshape({rows.size(0), -1}).index_select(0, src);
  r = at::where(keep.view({tokens, 1}), r, flat.narrow(0, 0, 1));
  flat.index_copy_(0, dst, r);
}

void reshape_and_cache(const at::Tensor &key, const at::Tensor &value, at::Tensor &key_cache,
                       at::Tensor &value_cache, const at::Tensor &slot_mapping) {
  int64_t tokens = slot_mapping.numel();
  if (tokens == 0)
    return;
  at::Tensor slot = slot_mapping.flatten().to(at::kLong);
  at::Tensor valid = slot.ge(0);
  at::Tensor first = valid.to(at::kInt).argmax(); // first valid token, 0 if none
  at::Tensor src = at::where(valid, at::arange(tokens, slot.options()), first);
  at::Tensor dst = slot.index_select(0, src); // -1 only when no token is valid
  at::Tensor keep = dst.ge(0);
  dst = dst.clamp_min(0);
  write_rows(key_cache, key, src, dst, keep);
  write_rows(value_cache, value, src, dst, keep);
}
