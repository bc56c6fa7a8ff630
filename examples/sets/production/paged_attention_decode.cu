// Production baseline for paged_attention_decode: FlashAttention-2 (varlen
// forward of libtorch, at::_flash_attention_forward) over the KV blocks
// gathered per sequence. The whole block table is gathered
// (index_select of [B * MB] cache blocks -> B padded sequences of MB * BS
// keys, cu_seqlens_k = b * MB * BS) and FlashAttention's seqused_k =
// context_lens limits sequence b to its first context_lens[b] keys; the
// queries are B sequences of one token (cu_seqlens_q = 0..B). GQA is native.
// No host synchronization. Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void paged_attention_decode(at::Tensor &out, const at::Tensor &query, const at::Tensor &key_cache,
                            const at::Tensor &value_cache, const at::Tensor &block_tables,
                            const at::Tensor &context_lens, double scale) {
  int64_t b = query.size(0), nb = key_cache.size(0), bs = key_cache.size(1);
  int64_t hk = key_cache.size(2), d = key_cache.size(3), mb = block_tables.size(1);
  at::Tensor blocks = block_tables.flatten().to(at::kLong).clamp(0, nb - 1);
  at::Tensor k = key_cache.index_select(0, blocks).view({b * mb * bs, hk, d});
  at::Tensor v = value_cache.index_select(0, blocks).view({b * mb * bs, hk, d});
  auto i32 = query.options().dtype(at::kInt);
  at::Tensor cu_q = at::arange(b + 1, i32);
  at::Tensor cu_k = at::arange(b + 1, i32) * static_cast<int>(mb * bs);
  auto res = at::_flash_attention_forward(query, k, v, cu_q, cu_k, 1, mb * bs, 0.0,
                                          /*is_causal=*/false, /*return_debug_mask=*/false, scale,
                                          std::nullopt, std::nullopt, context_lens);
  out.copy_(std::get<0>(res));
}
