//===- grouped_gemm_bf16.cpp - generator, reference, tolerance ------------===//
//
// Definition and entry point: suites/atrex-serve/ops/grouped_gemm_bf16.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

namespace atrex::rt::ops {
namespace {

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), n = key(shape, "N"), kk = key(shape, "K"),
          e = key(shape, "E");
  TensorMap m;
  m["x"] = bf16(g.randn({t, kk}) * g.rowScales(t));
  m["w"] = bf16(g.randn({e, n, kk}) / std::sqrt(double(kk)));
  // Rows per expert as a skewed router makes them (weights e^(1.5 z)), with
  // about a quarter of the experts owning no rows, always the first one and
  // (E >= 4) the last one when E >= 3: empty groups at both ends and in the
  // middle, one group often much larger than the others, group sizes that
  // are not multiples of any tile.
  at::Tensor weight = at::exp(g.randn({e}) * 1.5);
  at::Tensor empty = g.rand({e}) < 0.25;
  if (e >= 3)
    empty.index_put_({0}, true);
  if (e >= 4)
    empty.index_put_({e - 1}, true);
  empty.index_put_({(e - 1) / 2}, false); // at least one expert owns the rows
  weight = at::where(empty, at::zeros_like(weight), weight);
  // Row -> first expert whose cumulative weight exceeds u * total: an empty
  // expert never does (its cumulative weight equals its predecessor's).
  at::Tensor cdf = at::cumsum(weight, 0);
  at::Tensor ids = at::searchsorted(cdf, g.rand({t}) * cdf[e - 1],
                                    /*out_int32=*/false, /*right=*/true)
                       .clamp_max(e - 1);
  at::Tensor counts = at::bincount(ids.cpu(), {}, e);
  m["offs"] = at::cumsum(counts, 0).to(at::kInt).to(g.device).contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  const at::Tensor &x = get(in, "x"), &w = get(in, "w");
  at::Tensor offs = get(in, "offs").cpu().to(at::kLong);
  at::Tensor out =
      at::zeros({x.size(0), w.size(1)}, x.options().dtype(at::kFloat));
  int64_t lo = 0;
  for (int64_t e = 0; e < key(shape, "E"); ++e) {
    int64_t hi = offs[e].item<int64_t>();
    if (hi > lo)
      out.narrow(0, lo, hi - lo)
          .copy_(at::matmul(f32(x.narrow(0, lo, hi - lo)), f32(w[e]).t()));
    lo = hi;
  }
  TensorMap o;
  o["out"] = bf16(out);
  return o;
}
} // namespace

// Each output is one fp32 dot product of length K, rounded once: the order of
// the fp32 additions and the bf16 rounding, as gemm_bf16.
ATREX_REGISTER_OP(grouped_gemm_bf16, {{"out", bf16Reduction()}}, generate,
                  reference);

} // namespace atrex::rt::ops
