//===- grouped_gemm_bf16.cpp - generator, reference, tolerance ------------===//
//
// Definition and entry point: suites/atrex-serve/ops/grouped_gemm_bf16.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace atrex::rt::ops {
namespace {

// Rows per expert, chosen so that exactly min(T, n) experts own rows,
// n = E - floor(E/4): a facts model states U_groups (docs/semantic-work.md)
// from the shape alone.
//  - Exactly floor(E/4) experts own no rows: expert 0 (E >= 4), expert E-1
//    (E >= 8) and the rest drawn at random among the others, never expert
//    (E-1)/2: empty groups at both ends and in the middle.
//  - T >= n: each of the n other experts owns at least one row and the
//    remaining T - n rows split as a skewed router makes them (weights
//    e^(1.5 z)): one group often much larger than the others, group sizes
//    that are not multiples of any tile.
//  - T < n: T of the n, drawn at random, own one row each.
// Returns offs, int32 [E] cumulative row ends (offs[E-1] = T), on the CPU.
at::Tensor groupEnds(Gen &g, int64_t t, int64_t e) {
  int64_t numEmpty = e / 4, middle = (e - 1) / 2;
  std::vector<bool> empty(e, false);
  std::vector<int64_t> order = {0, e - 1};
  at::Tensor perm = g.randperm(e).cpu();
  auto permOf = perm.accessor<int64_t, 1>();
  for (int64_t i = 0; i < e; ++i)
    order.push_back(permOf[i]);
  for (int64_t i = 0, marked = 0; marked < numEmpty; ++i)
    if (order[i] != middle && !empty[order[i]]) {
      empty[order[i]] = true;
      ++marked;
    }
  std::vector<int64_t> owners; // the n experts that may own rows
  for (int64_t x = 0; x < e; ++x)
    if (!empty[x])
      owners.push_back(x);
  int64_t n = static_cast<int64_t>(owners.size());
  std::vector<int64_t> counts(e, 0);
  if (t >= n) {
    at::Tensor z = g.randn({n}).cpu().to(at::kDouble);
    at::Tensor u = g.rand({t - n}).cpu().to(at::kDouble);
    auto zOf = z.accessor<double, 1>();
    auto uOf = u.accessor<double, 1>();
    std::vector<double> cdf(n);
    double total = 0;
    for (int64_t i = 0; i < n; ++i)
      cdf[i] = total += std::exp(1.5 * zOf[i]);
    for (int64_t x : owners)
      counts[x] = 1;
    // Row -> the first owner whose cumulative weight exceeds u * total
    // (u < 1, so one does; the clamp only guards the index).
    for (int64_t r = 0; r < t - n; ++r) {
      auto it = std::upper_bound(cdf.begin(), cdf.end(), uOf[r] * total);
      ++counts[owners[std::min<int64_t>(it - cdf.begin(), n - 1)]];
    }
  } else {
    at::Tensor pick = g.randperm(n).cpu();
    auto pickOf = pick.accessor<int64_t, 1>();
    for (int64_t i = 0; i < t; ++i)
      counts[owners[pickOf[i]]] = 1;
  }
  std::vector<int32_t> ends(e);
  int64_t end = 0;
  for (int64_t x = 0; x < e; ++x)
    ends[x] = static_cast<int32_t>(end += counts[x]);
  return at::tensor(ends, at::kInt);
}

TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t t = key(shape, "T"), n = key(shape, "N"), kk = key(shape, "K"),
          e = key(shape, "E");
  TensorMap m;
  m["x"] = bf16(g.randn({t, kk}) * g.rowScales(t));
  m["w"] = bf16(g.randn({e, n, kk}) / std::sqrt(double(kk)));
  m["offs"] = groupEnds(g, t, e).to(g.device).contiguous();
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
