// Production baseline for moe_align_block_size: the torch form of vLLM's
// moe_align_block_size (as its torch reference, moe_align_block_size_torch,
// computes it), composed of ATen ops without a host sync (every size is known
// from the arguments):
//   count[e] = pairs routed to e (index_add_ of ones), blocks[e] =
//   ceil(count[e] / BS), offset[e] = BS * (blocks[0] + ... + blocks[e-1]);
//   the flat pair indices in expert order, increasing within an expert
//   (stable argsort), each at offset[e] + its rank within e (index_copy_ into
//   sorted_token_ids after a fill with the sentinel T*K);
//   expert_ids[b] = the expert whose cumulative block count first exceeds b
//   (searchsorted, right), 0 for the blocks past the padded total;
//   num_tokens_post_pad = BS * (blocks[0] + ... + blocks[E-1]).
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void moe_align_block_size(at::Tensor &sorted_token_ids, at::Tensor &expert_ids,
                          at::Tensor &num_tokens_post_pad, const at::Tensor &topk_ids,
                          int64_t num_experts, int64_t block_size) {
  at::Tensor flat = topk_ids.flatten().to(at::kLong);
  int64_t n = flat.numel();
  auto opts = flat.options();
  at::Tensor counts = at::zeros({num_experts}, opts).index_add_(0, flat, at::ones_like(flat));
  at::Tensor blocks = at::floor_divide(counts + (block_size - 1), block_size);
  at::Tensor block_end = blocks.cumsum(0);               // blocks of experts 0..e
  at::Tensor offset = (block_end - blocks) * block_size; // first row of expert e
  at::Tensor first_pair = counts.cumsum(0) - counts;     // rank base of expert e
  at::Tensor order = at::argsort(flat, /*stable=*/true, /*dim=*/0, /*descending=*/false);
  at::Tensor expert_of = flat.index_select(0, order);
  at::Tensor dest = offset.index_select(0, expert_of) + at::arange(n, opts) -
                    first_pair.index_select(0, expert_of);
  sorted_token_ids.fill_(n);
  sorted_token_ids.index_copy_(0, dest, order.to(sorted_token_ids.scalar_type()));
  at::Tensor total_blocks = block_end.narrow(0, num_experts - 1, 1); // [1]
  num_tokens_post_pad.copy_(total_blocks * block_size);
  at::Tensor b = at::arange(expert_ids.numel(), opts);
  at::Tensor e = at::searchsorted(block_end, b, /*out_int32=*/false, /*right=*/true);
  expert_ids.copy_(at::where(b < total_blocks, e, at::zeros_like(e)));
}
