//===- top_k_top_p_sampling.cpp - generator, reference, tolerance ---------===//
//
// Definition and entry point:
// suites/atrex-serve/ops/top_k_top_p_sampling.mlir.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace atrex::rt::ops {
namespace {

// The kept set and the pick of one row, in double precision: the
// definition's rules (top-k by probability, ties by the lower index; the
// least prefix reaching top_p of the top-k mass, else k; inverse CDF in index
// order over the kept tokens, the last kept token if none exceeds).
struct RowPick {
  std::vector<int64_t> order; // token of each rank
  std::vector<int64_t> rank;  // rank of each token
  std::vector<double> prefix; // prefix[n] = mass of ranks 0 .. n-1
  int64_t k = 0, n = 0;
};

// The rank order: a stable LSD radix sort (4 passes of 8 bits) of the
// probabilities' order-preserving bits, inverted so that larger sorts first,
// over the tokens in index order: descending probability, ties by the lower
// index, several times faster than std::stable_sort with a comparator (the
// B = 256, V = 152k problems generate and check rows many times per unit).
RowPick keptSet(const float *p, int64_t v, int32_t topK, float topP) {
  RowPick r;
  std::vector<uint32_t> key(v);
  for (int64_t i = 0; i < v; ++i) {
    uint32_t bits = 0; // -0 and +0 tie (ordered by index, as p[a] > p[b])
    if (p[i] != 0.0f)
      std::memcpy(&bits, &p[i], sizeof bits);
    // Total order of floats as unsigned integers, then descending.
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    key[i] = ~bits;
  }
  std::vector<int64_t> from(v), to(v);
  std::iota(from.begin(), from.end(), 0);
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[257] = {0};
    for (int64_t i = 0; i < v; ++i)
      ++count[((key[i] >> shift) & 0xffu) + 1];
    for (int d = 0; d < 256; ++d)
      count[d + 1] += count[d];
    for (int64_t i = 0; i < v; ++i) {
      int64_t t = from[i];
      to[count[(key[t] >> shift) & 0xffu]++] = t;
    }
    from.swap(to);
  }
  r.order = std::move(from);
  r.rank.resize(v);
  r.prefix.assign(v + 1, 0.0);
  for (int64_t i = 0; i < v; ++i) {
    int64_t t = r.order[i];
    r.rank[t] = i;
    r.prefix[i + 1] = r.prefix[i] + double(p[t]);
  }
  r.k = (topK >= 1 && topK <= v) ? topK : v;
  double thr = double(topP) * r.prefix[r.k];
  r.n = r.k;
  for (int64_t n = 1; n <= r.k; ++n)
    if (r.prefix[n] >= thr) {
      r.n = n;
      break;
    }
  return r;
}

int64_t pick(const float *p, int64_t v, const RowPick &r, float u) {
  double target = double(u) * r.prefix[r.n], run = 0;
  int64_t last = -1;
  for (int64_t i = 0; i < v; ++i) {
    if (r.rank[i] >= r.n)
      continue;
    run += double(p[i]);
    last = i;
    if (run > target)
      return i;
  }
  return last;
}

// Rows of the generated problems: a head of Hd tokens (Hd = 1 .. 16, at most
// V/2) at random positions holding 95% of the mass with well-separated
// probabilities (weights 1 + (Hd - j + 0.4 u) / Hd: neighbours at least
// 0.6/Hd apart, each token at least 0.43/Hd of the mass), and a tail of the
// other V - Hd tokens sharing 5% (weights 0.5 + (t + 0.5 u) / (V - Hd),
// distinct even in fp32 at V = 152k: relative gaps >= 2e-6, fp32 resolves
// 6e-8), every tail token below every head token. No two probabilities are
// equal, so the order is the same for every implementation.
// top_k: V (row 0), 1 (row 1), -1 (row 2; disabled), else 1 .. 2 Hd + 4
// (reaching into the tail). top_p: 1 (row 0 and a fifth of the rows after
// row 1), else
// the midpoint (c_{n-1} + c_n) / 2 of the normalized prefix masses of a
// random n within the head: at least p_(n) / (2 S_k) >= 0.013 from either
// boundary, so fp32 sums in any order find the same n.
// Row 0 has no head token at index 0 and row 1's top token is not row 0's
// sample: the samples are neither all 0 nor all equal.
// uniform: the middle of the CDF interval of a head token among the kept ones,
// at least p / (2 S_n) >= 0.013 from either end of it, far above the fp32
// summation error of any order over V = 152k tokens (|error| <= 2^-24 V,
// 9e-3, in the worst sequential case, about 1e-5 typically). Where rounding
// drops or keeps a tail token at the end of the kept prefix (top_p = 1), the
// CDF moves by its mass (< 1e-6 at large V, < 0.15 / V in general, less than
// the margin), so the pick is the same.
TensorMap generate(Gen &g, const OpSpec &, const ShapeMap &shape) {
  int64_t b = key(shape, "B"), v = key(shape, "V");
  at::Tensor pos =
      at::argsort(g.rand({b, v}), /*dim=*/int64_t(-1), /*descending=*/false)
          .cpu()
          .contiguous();
  at::Tensor jit = g.rand({b, v}).cpu().to(at::kDouble).contiguous();
  at::Tensor hdDraw = g.randint(0, 5, {b}).cpu();
  at::Tensor kDraw = g.rand({b}).cpu(), pDraw = g.rand({b}).cpu(),
             tauDraw = g.rand({b}).cpu(), nDraw = g.rand({b}).cpu();
  at::Tensor probs = at::empty({b, v}, at::kFloat);
  at::Tensor topK = at::empty({b}, at::kInt), topP = at::empty({b}, at::kFloat),
             uni = at::empty({b}, at::kFloat);
  const int64_t *hdAt = hdDraw.data_ptr<int64_t>();
  const float *kAt = kDraw.data_ptr<float>(), *pAt = pDraw.data_ptr<float>(),
              *tauAt = tauDraw.data_ptr<float>(),
              *nAt = nDraw.data_ptr<float>();
  int32_t *topKAt = topK.data_ptr<int32_t>();
  float *topPAt = topP.data_ptr<float>(), *uniAt = uni.data_ptr<float>();
  int64_t sample0 = -1;
  // One row; rows are independent except that row 1 reads row 0's sample,
  // so row 0 runs first and the others in parallel (same values as serial).
  auto makeRow = [&](int64_t row) {
    int64_t hd =
        std::max<int64_t>(1, std::min<int64_t>(int64_t(1) << hdAt[row], v / 2));
    int64_t nt = v - hd;
    double headMass = nt > 0 ? 0.95 : 1.0;
    std::vector<double> w(v);
    double headSum = 0, tailSum = 0;
    const double *ju = jit.data_ptr<double>() + row * v;
    int64_t *where = pos.data_ptr<int64_t>() + row * v;
    // Row 0 keeps token 0 out of the head: its sample (a head token) is not
    // 0, so an all-zero answer fails.
    if (row == 0)
      for (int64_t j = 0; j < hd; ++j)
        if (where[j] == 0)
          std::swap(where[j], where[v - 1]);
    // Row 1 (top_k = 1: its most probable token) does not sample row 0's
    // token, so the samples are not all equal.
    if (row == 1 && where[0] == sample0)
      std::swap(where[0], where[1]);
    for (int64_t j = 0; j < v; ++j) {
      double u = ju[j];
      if (j < hd) {
        w[j] = 1.0 + (double(hd - j) + 0.4 * u) / double(hd);
        headSum += w[j];
      } else {
        w[j] = 0.5 + (double(j - hd) + 0.5 * u) / double(nt);
        tailSum += w[j];
      }
    }
    float *pr = probs.data_ptr<float>() + row * v;
    for (int64_t j = 0; j < v; ++j) {
      double p = j < hd ? headMass * w[j] / headSum
                        : (1.0 - headMass) * w[j] / tailSum;
      pr[where[j]] = float(p);
    }
    int32_t k;
    if (row == 0)
      k = int32_t(v);
    else if (row == 1)
      k = 1;
    else if (row == 2)
      k = -1;
    else
      k = 1 +
          int32_t(double(kAt[row]) * double(std::min<int64_t>(v, 2 * hd + 4)));
    k = std::min<int32_t>(k, int32_t(v));
    RowPick r = keptSet(pr, v, k, 1.0f);
    float p = 1.0f;
    // Row 1 always gets a top_p below 1, so no batch has a constant top_p
    // (a kernel that ignored it would pass; B = 2 problems were invalid).
    if (row == 1 || (row != 0 && double(pAt[row]) >= 0.2)) {
      int64_t head = std::min(r.k, hd);
      int64_t n =
          1 + std::min<int64_t>(head - 1, int64_t(double(nAt[row]) * head));
      p = float((r.prefix[n - 1] + r.prefix[n]) / (2.0 * r.prefix[r.k]));
      r = keptSet(pr, v, k, p);
    }
    // The target token: a head token (rank below Hd) among the kept ones.
    int64_t heads = std::min(r.n, hd);
    int64_t tau = r.order[std::min<int64_t>(
        heads - 1, int64_t(double(tauAt[row]) * heads))];
    double before = 0;
    for (int64_t i = 0; i < tau; ++i)
      if (r.rank[i] < r.n)
        before += double(pr[i]);
    double u = (before + 0.5 * double(pr[tau])) / r.prefix[r.n];
    if (row == 0)
      sample0 = pick(pr, v, r, float(u));
    topKAt[row] = k;
    topPAt[row] = p;
    uniAt[row] = float(u);
  };
  if (b > 0)
    makeRow(0);
  at::parallel_for(1, b, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row)
      makeRow(row);
  });
  TensorMap m;
  m["probs"] = probs.to(g.device).contiguous();
  m["top_k"] = topK.to(g.device).contiguous();
  m["top_p"] = topP.to(g.device).contiguous();
  m["uniform"] = uni.to(g.device).contiguous();
  return m;
}

TensorMap reference(const OpSpec &, const ShapeMap &shape,
                    const TensorMap &in) {
  int64_t b = key(shape, "B"), v = key(shape, "V");
  at::Tensor probs = get(in, "probs").cpu().contiguous();
  at::Tensor topK = get(in, "top_k").cpu(), topP = get(in, "top_p").cpu(),
             uni = get(in, "uniform").cpu();
  at::Tensor samples = at::empty({b}, at::kInt);
  at::Tensor topKI = topK.to(at::kInt).contiguous();
  const int32_t *kAt = topKI.data_ptr<int32_t>();
  at::Tensor topPF = topP.to(at::kFloat).contiguous(),
             uniF = uni.to(at::kFloat).contiguous();
  const float *pAt = topPF.data_ptr<float>(), *uAt = uniF.data_ptr<float>();
  int32_t *picked = samples.data_ptr<int32_t>();
  at::parallel_for(0, b, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const float *pr = probs.data_ptr<float>() + row * v;
      RowPick r = keptSet(pr, v, kAt[row], pAt[row]);
      picked[row] = int32_t(pick(pr, v, r, uAt[row]));
    }
  });
  TensorMap out;
  out["samples"] = samples.to(get(in, "probs").device()).contiguous();
  return out;
}
} // namespace

// A token id: exact. The generator keeps every decision (order, kept prefix,
// pick) at least 0.013 of the kept mass away from its boundary, so any fp32
// summation order decides the same.
ATREX_REGISTER_OP(top_k_top_p_sampling, {{"samples", exact()}}, generate,
                  reference);

} // namespace atrex::rt::ops
