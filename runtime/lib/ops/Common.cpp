//===- Common.cpp - operator registry and shared reference helpers --------===//
//
// See OpImpl.h. References compute in fp32 from the (bf16 / fp8) inputs and
// round once to the output dtype.
//
//===----------------------------------------------------------------------===//
#include "OpImpl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace atrex::rt {

namespace ops {

namespace {
std::map<std::string, OpImpl> &registry() {
  static std::map<std::string, OpImpl> r;
  return r;
}
} // namespace

bool registerOp(const char *name, OpImpl impl) {
  if (!impl.generate || !impl.reference) {
    std::fprintf(
        stderr,
        "atrex-rt: operator '%s' registered without a generator or reference\n",
        name);
    std::abort();
  }
  if (!registry().emplace(name, impl).second) {
    std::fprintf(stderr, "atrex-rt: operator '%s' registered twice\n", name);
    std::abort();
  }
  registerOpTolerances(name, impl.tolerances);
  return true;
}

const OpImpl *findOpImpl(const std::string &name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

Tolerance tol(double atol, double rtol, double atolRms, double maxRelNorm) {
  Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  t.atolRms = atolRms;
  t.maxRelNorm = maxRelNorm;
  return t;
}

Tolerance exact() {
  Tolerance t;
  t.exact = true;
  return t;
}

at::Tensor scalarF64(double v) {
  return at::scalar_tensor(v, at::TensorOptions().dtype(at::kDouble));
}
at::Tensor scalarI64(int64_t v) {
  return at::scalar_tensor(v, at::TensorOptions().dtype(at::kLong));
}
at::Tensor scalarBool(bool v) {
  return at::scalar_tensor(v, at::TensorOptions().dtype(at::kBool));
}

const at::Tensor &get(const TensorMap &m, const std::string &name) {
  auto it = m.find(name);
  if (it == m.end())
    throw std::runtime_error("missing tensor '" + name + "'");
  return it->second;
}

Gen::Gen(uint64_t seed, const at::Device &device) : device(device) {
  gen = at::globalContext().defaultGenerator(device).clone();
  gen.set_current_seed(seed);
}

std::pair<at::Tensor, at::Tensor> quantGroup128(const at::Tensor &x,
                                                double eps) {
  auto sizes = x.sizes().vec();
  int64_t last = sizes.back();
  at::Tensor xf = x.to(at::kFloat).reshape({-1, last / 128, 128});
  at::Tensor s = at::clamp_min(xf.abs().amax(-1), eps) / kFp8Max;
  at::Tensor q = saturateE4m3(xf / s.unsqueeze(-1));
  std::vector<int64_t> sShape(sizes.begin(), sizes.end() - 1);
  sShape.push_back(last / 128);
  return {q.reshape(sizes), s.reshape(sShape)};
}

at::Tensor dequantGroup128(const at::Tensor &q, const at::Tensor &s) {
  auto sizes = q.sizes().vec();
  int64_t last = sizes.back();
  return (q.to(at::kFloat).reshape({-1, last / 128, 128}) *
          s.reshape({-1, last / 128, 1}))
      .reshape(sizes);
}

std::pair<at::Tensor, at::Tensor> quantBlock128(const at::Tensor &w) {
  auto sizes = w.sizes().vec();
  int64_t r = sizes[sizes.size() - 2], c = sizes.back();
  at::Tensor wf = w.to(at::kFloat).reshape({-1, r / 128, 128, c / 128, 128});
  at::Tensor s =
      wf.abs().amax({2, 4}).clamp_min(1e-10) / kFp8Max; // [b, r/128, c/128]
  at::Tensor q = saturateE4m3(wf / s.unsqueeze(2).unsqueeze(4));
  std::vector<int64_t> sShape(sizes.begin(), sizes.end() - 2);
  sShape.push_back(r / 128);
  sShape.push_back(c / 128);
  return {q.reshape(sizes), s.reshape(sShape)};
}

at::Tensor dequantBlock128(const at::Tensor &q, const at::Tensor &s) {
  auto sizes = q.sizes().vec();
  int64_t r = sizes[sizes.size() - 2], c = sizes.back();
  at::Tensor qf = q.to(at::kFloat).reshape({-1, r / 128, 128, c / 128, 128});
  return (qf * s.reshape({-1, r / 128, 1, c / 128, 1})).reshape(sizes);
}

at::Tensor distinctBlockTables(Gen &g, int64_t b, int64_t maxBlocks,
                               int64_t nb) {
  at::Tensor pool = g.randperm(nb - 1) + 1;
  return pool.narrow(0, 0, b * maxBlocks)
      .reshape({b, maxBlocks})
      .to(at::kInt)
      .contiguous();
}

at::Tensor pagedRows(const at::Tensor &cache, const at::Tensor &tableRow,
                     int64_t n, int64_t bs) {
  int64_t nblk = (n + bs - 1) / bs;
  std::vector<int64_t> rows(cache.sizes().begin() + 1, cache.sizes().end());
  rows[0] = nblk * bs;
  return cache.index_select(0, tableRow.narrow(0, 0, nblk).to(at::kLong))
      .reshape(rows)
      .narrow(0, 0, n);
}

at::Tensor calibratedFp8Scale(Gen &g, const at::Tensor &y) {
  at::Tensor cover = 0.5 + 0.25 * g.rand({1});
  return (y.to(at::kFloat).abs().amax().reshape({1}) * cover / kFp8Max)
      .contiguous();
}

at::Tensor slotMapping(Gen &g, int64_t t, int64_t slots) {
  at::Tensor slot = g.randperm(slots).narrow(0, 0, t).clone();
  int64_t pad = t > 1 ? std::max<int64_t>(1, t / 8) : 0;
  at::Tensor where = g.randperm(t);
  if (t >= 2 && !slot.eq(slots - 1).any().item<bool>())
    slot.index_fill_(0, where.narrow(0, 0, 1), slots - 1);
  if (pad > 0)
    slot.index_fill_(0, where.narrow(0, 1, pad), -1);
  return slot.contiguous();
}

at::Tensor rmsNormF32(const at::Tensor &xf, const at::Tensor &w, double eps) {
  at::Tensor var = xf.pow(2).mean(-1, /*keepdim=*/true);
  return xf * at::rsqrt(var + eps) * w.to(at::kFloat);
}

at::Tensor ropeNeox(const at::Tensor &x, int64_t heads, int64_t d,
                    const at::Tensor &cos, const at::Tensor &sin) {
  int64_t t = x.size(0);
  at::Tensor xf = x.to(at::kFloat).reshape({t, heads, d});
  at::Tensor x1 = xf.narrow(-1, 0, d / 2), x2 = xf.narrow(-1, d / 2, d / 2);
  at::Tensor c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  at::Tensor o = at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
  return o.reshape({t, heads * d}).to(x.scalar_type());
}

std::pair<at::Tensor, at::Tensor> randomRouting(Gen &g, int64_t t, int64_t e,
                                                int64_t k) {
  at::Tensor logits = g.randn({t, e}) * 2.0;
  auto [w, ids] = at::softmax(logits, -1).topk(k, -1);
  w = w / w.sum(-1, true);
  return {w.contiguous(), ids.to(at::kInt).contiguous()};
}

at::Tensor
moeRef(const at::Tensor &xIn, int64_t numExperts, const at::Tensor &topkW,
       const at::Tensor &topkIds,
       const std::function<std::pair<at::Tensor, at::Tensor>(int64_t)> &weights,
       bool quantActivations) {
  int64_t t = xIn.size(0), h = xIn.size(1);
  at::Tensor x = xIn.to(at::kFloat);
  if (quantActivations) {
    auto [q, s] = quantGroup128(xIn);
    x = dequantGroup128(q, s);
  }
  at::Tensor out = at::zeros({t, h}, x.options());
  at::Tensor ids = topkIds.to(at::kLong);
  for (int64_t e = 0; e < numExperts; ++e) {
    at::Tensor nz = (ids == e).nonzero(); // [n, 2] (token, slot)
    if (nz.size(0) == 0)
      continue;
    at::Tensor tok = nz.select(1, 0), slot = nz.select(1, 1);
    auto [w1, w2] = weights(e); // fp32 [2I, H], [H, I]
    at::Tensor a = siluAndMulF32(at::matmul(x.index_select(0, tok), w1.t()));
    if (quantActivations) {
      auto [q, s] = quantGroup128(a);
      a = dequantGroup128(q, s);
    }
    at::Tensor y = at::matmul(a, w2.t());
    at::Tensor wt = topkW.to(at::kFloat).index({tok, slot}).unsqueeze(1);
    out.index_add_(0, tok, y * wt);
  }
  return out.to(at::kBFloat16);
}

} // namespace ops

std::vector<std::string> registeredOperators() {
  std::vector<std::string> names;
  for (const auto &entry : ops::registry())
    names.push_back(entry.first);
  return names;
}

} // namespace atrex::rt
