//===- embedding.cpp - embedding: generator, reference, tolerance ---------===//
//
// Definition and entry point: suites/atrex-serve/ops/embedding.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <algorithm>

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), v = key(shape, "V"), h = key(shape, "H");
  TensorMap m;
  // Token ids drawn from a pool of about T/2 random ids, so that ids repeat
  // (a gather must not assume distinct rows); the first and last rows of the
  // table (0 and V-1, off-by-one and bounds errors) are placed at random
  // positions, V-1 twice when T >= 3.
  at::Tensor pool = g.randint(0, v, {std::max<int64_t>(t / 2, 1)});
  at::Tensor ids = pool.index_select(0, g.randint(0, pool.size(0), {t}));
  at::Tensor perm = g.randperm(t);
  ids.index_fill_(0, perm.narrow(0, 0, 1), 0);
  if (t >= 2)
    ids.index_fill_(0, perm.narrow(0, 1, std::min<int64_t>(t - 1, 2)), v - 1);
  m["ids"] = ids.to(at::kInt).contiguous();
  // Distinct random rows (scaled 2^-4 .. 2^4), so that a wrong row shows.
  m["weight"] = bf16(g.randn({v, h}) * g.rowScales(v));
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &, const TensorMap &in) {
  TensorMap out;
  out["out"] = get(in, "weight")
                   .index_select(0, get(in, "ids").to(at::kLong))
                   .contiguous();
  return out;
}
} // namespace

// A gather copies bf16 values: the output is bit-identical to the rows.
ATREX_REGISTER_OP(embedding, {{"out", exact()}}, generate, reference);

} // namespace atrex::rt::ops
