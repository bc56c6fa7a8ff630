// Production baseline for flash_attention_prefill: FlashAttention-2 varlen
// forward of libtorch (at::_flash_attention_forward with cu_seqlens for both
// queries and keys, causal; with equal query and key lengths its
// bottom-right-aligned causal mask is the top-left one), GQA native, written
// into `out`. The maximum sequence length given to FlashAttention is T (an
// upper bound; it sizes FlashAttention's grid), not max_seqlen: the gate of
// 2026-11-29 passes the first trial's max_seqlen with later trials'
// cu_seqlens, and FlashAttention then leaves rows unwritten.
// Known: FlashAttention rounds P to bf16 before P V; the reference keeps fp32,
// and on the H200 (B=4, T=8192, D=128) 6 of 33.5M elements with tiny values
// fell outside the element-wise tolerance.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void flash_attention_prefill(at::Tensor &out, const at::Tensor &q, const at::Tensor &k,
                             const at::Tensor &v, const at::Tensor &cu_seqlens, int64_t max_seqlen,
                             double scale) {
  int64_t max_len = q.size(0); // not max_seqlen: see above
  auto res = at::_flash_attention_forward(q, k, v, cu_seqlens, cu_seqlens, max_len, max_len,
                                          0.0, /*is_causal=*/true, /*return_debug_mask=*/false,
                                          scale);
  out.copy_(std::get<0>(res));
}
