// Production baseline for mla_decode: libtorch's memory-efficient attention
// kernel (at::_efficient_attention_forward: xFormers' CUTLASS flash-style
// forward, fp32 softmax and accumulation, P rounded to bf16 before P V as
// FlashAttention does) in its varlen mode. FlashAttention-2 is not an option:
// its head size is at most 256, MLA's q/k rows are L + R = 576 wide and its
// values L = 512 (memory-efficient attention takes separate q/k and v head
// sizes of any width).
// MLA at decode is multi-query attention with one latent KV head, so the H
// query heads of sequence b are laid out as H query rows of one head:
//   q = cat(q_nope, q_pe) [B*H rows, L+R], cu_seqlens_q = b*H;
//   keys = the block table's cache pages gathered per sequence (index_select
//   of [B * MB] pages -> B padded runs of MB*BS rows [c | k_pe]),
//   cu_seqlens_k = b*MB*BS, seqlen_k = context_lens (the kernel's per-sequence
//   key count: keys past context_lens[b] are not attended), values = the
//   first L columns of the same rows (a strided view, no copy);
//   scale as given, no mask, no dropout, no host sync.
// If the kernel refuses the shapes (no cutlassF kernel for the alignment, or
// a build without it), the same gathered rows go through fp32 ATen ops
// (bmm, masked softmax, bmm), as the reference computes.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

#include <limits>

void mla_decode(at::Tensor &out, const at::Tensor &q_nope, const at::Tensor &q_pe,
                const at::Tensor &kv_cache, const at::Tensor &block_tables,
                const at::Tensor &context_lens, double scale) {
  int64_t b = q_nope.size(0), h = q_nope.size(1), lat = q_nope.size(2), rope = q_pe.size(2);
  int64_t nb = kv_cache.size(0), bs = kv_cache.size(1), row = kv_cache.size(2);
  int64_t mb = block_tables.size(1), keys = mb * bs;
  at::Tensor pages = block_tables.flatten().to(at::kLong).clamp(0, nb - 1);
  at::Tensor kv = kv_cache.index_select(0, pages).view({b, keys, row}); // [B, MB*BS, L+R]
  at::Tensor q = at::cat({q_nope, q_pe}, -1);                           // [B, H, L+R]
  at::Tensor lens = context_lens.to(at::kInt).contiguous();
  try {
    auto i32 = q.options().dtype(at::kInt);
    at::Tensor cu_q = at::arange(b + 1, i32) * static_cast<int>(h);
    at::Tensor cu_k = at::arange(b + 1, i32) * static_cast<int>(keys);
    at::Tensor k4 = kv.view({1, b * keys, 1, row});
    auto res = at::_efficient_attention_forward(
        q.view({1, b * h, 1, lat + rope}), k4, k4.narrow(-1, 0, lat), std::nullopt, cu_q, cu_k,
        h, keys, /*dropout_p=*/0.0, /*custom_mask_type=*/0, /*compute_log_sumexp=*/false, scale,
        lens);
    out.copy_(std::get<0>(res).view({b, h, lat}));
    return;
  } catch (const c10::Error &) {
    // no memory-efficient attention kernel here: fp32 below
  }
  at::Tensor kf = kv.to(at::kFloat);
  at::Tensor s = at::bmm(q.to(at::kFloat), kf.transpose(1, 2)) * scale; // [B, H, MB*BS]
  at::Tensor pos = at::arange(keys, lens.options().dtype(at::kLong));
  at::Tensor masked = pos.view({1, 1, keys}) >= lens.to(at::kLong).view({b, 1, 1});
  s.masked_fill_(masked, -std::numeric_limits<float>::infinity());
  out.copy_(at::bmm(at::softmax(s, -1), kf.narrow(-1, 0, lat)));
}
