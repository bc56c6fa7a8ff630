// Production baseline for top_k_top_p_sampling: no libtorch operator samples
// with FlashInfer's rules, so this is the torch fallback a serving framework
// runs (vLLM's sampler sorts the probabilities and masks the top-k / top-p
// tails), made deterministic with the given uniform, every row at once, no
// host sync:
//   sorted, idx = stable descending sort of probs (equal probabilities keep
//     the lower token index first: the definition's order);
//   c = cumsum(sorted) in fp64 (c[r] = mass of the r + 1 most probable);
//   k = top_k if 1 <= top_k <= V else V; S_k = c[k - 1];
//   n = min(k, 1 + #{r < k : c[r] < top_p * S_k}) (the least prefix whose
//     mass reaches top_p * S_k; c is nondecreasing); S_n = c[n - 1];
//   kept = tokens whose rank (the inverse of idx, by scatter_) is < n;
//   the pick, in token-index order: the first kept token whose inclusive
//     cumulative kept mass (fp64 cumsum) exceeds uniform * S_n (argmax of the
//     0/1 condition gives the first), else the last kept token.
// ATen kernels: sort, cumsum, gather, scatter_, comparisons, argmax/amax.
// Dynamic verdict: fallback (libtorch kernels only).
#include <ATen/ATen.h>

void top_k_top_p_sampling(at::Tensor &samples, const at::Tensor &probs, const at::Tensor &top_k,
                          const at::Tensor &top_p, const at::Tensor &uniform) {
  int64_t rows = probs.size(0), v = probs.size(1);
  auto [sorted, idx] = at::sort(probs, /*stable=*/true, /*dim=*/-1, /*descending=*/true);
  at::Tensor c = sorted.to(at::kDouble).cumsum(-1);
  at::Tensor ranks = at::arange(v, idx.options()).unsqueeze(0); // [1, V]
  at::Tensor kk = top_k.to(at::kLong).view({rows, 1});
  at::Tensor k = at::where(kk.ge(1).logical_and(kk.le(v)), kk, at::full_like(kk, v));
  at::Tensor sk = c.gather(1, k - 1);
  at::Tensor thr = top_p.to(at::kDouble).view({rows, 1}) * sk;
  at::Tensor below = c.lt(thr).logical_and(ranks.lt(k));
  at::Tensor n = at::minimum(below.sum(1, /*keepdim=*/true) + 1, k);
  at::Tensor sn = c.gather(1, n - 1);
  at::Tensor rank = at::empty_like(idx).scatter_(1, idx, ranks.expand({rows, v}));
  at::Tensor kept = rank.lt(n);
  at::Tensor mass = at::where(kept, probs.to(at::kDouble), 0.0).cumsum(1);
  at::Tensor target = uniform.to(at::kDouble).view({rows, 1}) * sn;
  at::Tensor hit = kept.logical_and(mass.gt(target));
  at::Tensor first = hit.to(at::kInt).argmax(1);
  at::Tensor last = at::where(kept, ranks, -1).amax(1);
  samples.copy_(at::where(hit.any(1), first, last));
}
