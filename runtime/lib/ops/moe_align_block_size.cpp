//===- moe_align_block_size.cpp - generator, reference, tolerance ---------===//
//
// Definition and entry point: suites/atrex-serve/ops/moe_align_block_size.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), k = key(shape, "K"), e = key(shape, "E"),
          bs = key(shape, "BS");
  TensorMap m;
  // Each token routes to K distinct experts (as a top-k router does): the K
  // largest of uniform keys plus a per-expert heat. About E/4 cold experts
  // (heat -2) receive no pair at all unless fewer than K experts are warm
  // (empty runs: no block, the next offset unchanged); about E/16 hot ones
  // and the last expert E-1 (the end of the offsets) have heat 0.3 and
  // receive several times the pairs of the others (runs of several blocks);
  // the counts take many residues modulo BS (partial last blocks).
  at::Tensor perm = g.randperm(e);
  at::Tensor heat = at::zeros({e}, g.f32());
  int64_t cold = std::min(e / 4, e - k), hot = std::max<int64_t>(1, e / 16);
  heat.index_fill_(0, perm.narrow(0, 0, cold), -2.0);
  heat.index_fill_(0, perm.narrow(0, cold, std::min(hot, e - cold)), 0.3);
  heat.index_fill_(0, at::full({1}, e - 1, perm.options()), 0.3);
  at::Tensor ids = std::get<1>((g.rand({t, e}) + heat).topk(k, -1));
  m["topk_ids"] = ids.to(at::kInt).contiguous();
  m["num_experts"] = scalarI64(e);
  m["block_size"] = scalarI64(bs);
  return m;
}

TensorMap reference(const OpSpec &spec, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t e = key(shape, "E"), bs = key(shape, "BS");
  int64_t padLen = spec.findArg("sorted_token_ids")->shape(shape)[0];
  int64_t blocks = spec.findArg("expert_ids")->shape(shape)[0];
  at::Tensor flat = get(in, "topk_ids").flatten().to(at::kLong);
  int64_t n = flat.numel();
  at::Tensor counts = at::bincount(flat, {}, e);
  at::Tensor padded = at::floor_divide(counts + (bs - 1), bs) * bs;
  at::Tensor offset = padded.cumsum(0) - padded;
  int64_t total = padded.sum().item<int64_t>();
  // Pairs in expert order, increasing flat index within an expert (a stable
  // sort), and each pair's rank within its expert.
  at::Tensor order = at::argsort(flat, /*stable=*/true, /*dim=*/0,
                                 /*descending=*/false);
  at::Tensor expertOf = flat.index_select(0, order);
  at::Tensor firstOf = counts.cumsum(0) - counts;
  at::Tensor rank =
      at::arange(n, flat.options()) - firstOf.index_select(0, expertOf);
  at::Tensor dest = offset.index_select(0, expertOf) + rank;
  at::Tensor sorted = at::full({padLen}, n, flat.options());
  sorted.index_put_({dest}, order);
  at::Tensor expertIds = at::zeros({blocks}, flat.options());
  expertIds.narrow(0, 0, total / bs)
      .copy_(at::repeat_interleave(at::arange(e, flat.options()),
                                   at::floor_divide(padded, bs)));
  TensorMap out;
  out["sorted_token_ids"] = sorted.to(at::kInt).contiguous();
  out["expert_ids"] = expertIds.to(at::kInt).contiguous();
  out["num_tokens_post_pad"] =
      at::full({1}, total, flat.options()).to(at::kInt).contiguous();
  return out;
}
} // namespace

// Integer bookkeeping with a canonical order (see the definition): every
// entry is exact.
ATREX_REGISTER_OP(moe_align_block_size,
                  {{"sorted_token_ids", exact()},
                   {"expert_ids", exact()},
                   {"num_tokens_post_pad", exact()}},
                  generate, reference);

} // namespace atrex::rt::ops
