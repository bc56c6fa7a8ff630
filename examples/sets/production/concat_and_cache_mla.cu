// Production baseline for concat_and_cache_mla: the torch form of vLLM's MLA
// cache write: rows = cat(kv_c, k_pe) [T, L + R], then one index_copy_ into
// the cache viewed as [NB * BS, L + R] rows at slot_mapping, without a host
// sync: padding tokens (slot < 0) must write nothing, and index_copy_ takes
// no negative index, so each padding token is redirected to the first valid
// token (the same slot and the same row: a duplicate write of identical
// bytes). When no token is valid every token rewrites slot 0 with the row it
// already holds (read before the write, in stream order). The first valid
// token comes from argmax over the 0/1 validity (the first maximum).
// ATen kernels: cat, ge, argmax, where, index_select, index_copy_.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void concat_and_cache_mla(const at::Tensor &kv_c, const at::Tensor &k_pe, at::Tensor &kv_cache,
                          const at::Tensor &slot_mapping) {
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
  at::Tensor flat = kv_cache.view({kv_cache.size(0) * kv_cache.size(1), kv_cache.size(2)});
  at::Tensor rows = at::cat({kv_c.reshape({tokens, -1}), k_pe.reshape({tokens, -1})}, 1)
                        .index_select(0, src);
  rows = at::where(keep.view({tokens, 1}), rows, flat.narrow(0, 0, 1));
  flat.index_copy_(0, dst, rows);
}
