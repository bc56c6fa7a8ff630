//===- Ops.cpp - libtorch references and input generators -----------------===//
//
// References compute in fp32 from the (bf16 / fp8) inputs and round once to
// the output dtype. Keep this the only translation unit of the operator
// library that includes libtorch headers.
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Ops.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace atrex::rt {

namespace {

constexpr double kFp8Max = 448.0;

int64_t key(const ShapeMap &s, const char *k) { return s.at(k); }

at::Tensor scalarF64(double v) { return at::scalar_tensor(v, at::TensorOptions().dtype(at::kDouble)); }
at::Tensor scalarI64(int64_t v) { return at::scalar_tensor(v, at::TensorOptions().dtype(at::kLong)); }
at::Tensor scalarBool(bool v) { return at::scalar_tensor(v, at::TensorOptions().dtype(at::kBool)); }

const at::Tensor &get(const TensorMap &m, const std::string &name) {
  auto it = m.find(name);
  if (it == m.end())
    throw std::runtime_error("missing tensor '" + name + "'");
  return it->second;
}

class Gen {
public:
  Gen(uint64_t seed, const at::Device &device) : device(device) {
    gen = at::globalContext().defaultGenerator(device).clone();
    gen.set_current_seed(seed);
  }
  at::TensorOptions f32() const { return at::TensorOptions().dtype(at::kFloat).device(device); }
  at::Tensor randn(at::IntArrayRef size) { return at::randn(size, gen, f32()); }
  at::Tensor rand(at::IntArrayRef size) { return at::rand(size, gen, f32()); }
  at::Tensor randint(int64_t lo, int64_t hi, at::IntArrayRef size) {
    return at::randint(lo, hi, size, gen, at::TensorOptions().dtype(at::kLong).device(device));
  }
  at::Tensor randperm(int64_t n) {
    return at::randperm(n, gen, at::TensorOptions().dtype(at::kLong).device(device));
  }
  // Per-row factors 2^u, u uniform in [-4, 4]: the edges of a bf16 row's
  // useful range for normalization and GEMM inputs.
  at::Tensor rowScales(int64_t rows) { return at::exp2(rand({rows, 1}) * 8.0 - 4.0); }

  at::Device device;
  at::Generator gen;
};

// Per-token-group (1 x 128) e4m3 quantization, vLLM's definition.
std::pair<at::Tensor, at::Tensor> quantGroup128(const at::Tensor &x, double eps = 1e-10) {
  auto sizes = x.sizes().vec();
  int64_t last = sizes.back();
  at::Tensor xf = x.to(at::kFloat).reshape({-1, last / 128, 128});
  at::Tensor s = at::clamp_min(xf.abs().amax(-1), eps) / kFp8Max;
  at::Tensor q = (xf / s.unsqueeze(-1)).clamp(-kFp8Max, kFp8Max).to(at::kFloat8_e4m3fn);
  std::vector<int64_t> sShape(sizes.begin(), sizes.end() - 1);
  sShape.push_back(last / 128);
  return {q.reshape(sizes), s.reshape(sShape)};
}
at::Tensor dequantGroup128(const at::Tensor &q, const at::Tensor &s) {
  auto sizes = q.sizes().vec();
  int64_t last = sizes.back();
  return (q.to(at::kFloat).reshape({-1, last / 128, 128}) * s.reshape({-1, last / 128, 1}))
      .reshape(sizes);
}
// 128 x 128 block quantization of a [..., R, C] weight.
std::pair<at::Tensor, at::Tensor> quantBlock128(const at::Tensor &w) {
  auto sizes = w.sizes().vec();
  int64_t r = sizes[sizes.size() - 2], c = sizes.back();
  at::Tensor wf = w.to(at::kFloat).reshape({-1, r / 128, 128, c / 128, 128});
  at::Tensor s = wf.abs().amax({2, 4}).clamp_min(1e-10) / kFp8Max; // [b, r/128, c/128]
  at::Tensor q = (wf / s.unsqueeze(2).unsqueeze(4)).clamp(-kFp8Max, kFp8Max).to(at::kFloat8_e4m3fn);
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

at::Tensor rmsNormF32(const at::Tensor &xf, const at::Tensor &w, double eps) {
  at::Tensor var = xf.pow(2).mean(-1, /*keepdim=*/true);
  return xf * at::rsqrt(var + eps) * w.to(at::kFloat);
}

at::Tensor ropeNeox(const at::Tensor &x, int64_t heads, int64_t d, const at::Tensor &cos,
                    const at::Tensor &sin) {
  int64_t t = x.size(0);
  at::Tensor xf = x.to(at::kFloat).reshape({t, heads, d});
  at::Tensor x1 = xf.narrow(-1, 0, d / 2), x2 = xf.narrow(-1, d / 2, d / 2);
  at::Tensor c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  at::Tensor o = at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
  return o.reshape({t, heads * d}).to(x.scalar_type());
}

// Router: softmax over random logits, top-k, renormalized (Mixtral style).
std::pair<at::Tensor, at::Tensor> randomRouting(Gen &g, int64_t t, int64_t e, int64_t k) {
  at::Tensor logits = g.randn({t, e}) * 2.0;
  auto [w, ids] = at::softmax(logits, -1).topk(k, -1);
  w = w / w.sum(-1, true);
  return {w.contiguous(), ids.to(at::kInt).contiguous()};
}

at::Tensor moeRef(const at::Tensor &xIn, int64_t numExperts, const at::Tensor &topkW,
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
    int64_t inter = w1.size(0) / 2;
    at::Tensor hgu = at::matmul(x.index_select(0, tok), w1.t());
    at::Tensor a = at::silu(hgu.narrow(1, 0, inter)) * hgu.narrow(1, inter, inter);
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

} // namespace

at::ScalarType toScalarType(DType d) {
  switch (d) {
  case DType::F64: return at::kDouble;
  case DType::F32: return at::kFloat;
  case DType::F16: return at::kHalf;
  case DType::BF16: return at::kBFloat16;
  case DType::F8E4M3: return at::kFloat8_e4m3fn;
  case DType::F8E5M2: return at::kFloat8_e5m2;
  case DType::I64: return at::kLong;
  case DType::I32: return at::kInt;
  case DType::I16: return at::kShort;
  case DType::I8: return at::kChar;
  case DType::U8: return at::kByte;
  case DType::Bool: return at::kBool;
  }
  throw std::logic_error("unknown dtype");
}

DType fromScalarType(at::ScalarType st) {
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::F8E4M3, DType::F8E5M2,
                  DType::I64, DType::I32, DType::I16, DType::I8, DType::U8, DType::Bool})
    if (toScalarType(d) == st)
      return d;
  throw std::runtime_error(std::string("tensor dtype ") + c10::toString(st) +
                           " has no tensor-directory name");
}

RawTensor toRawTensor(const std::string &name, const std::string &role, const at::Tensor &t) {
  RawTensor r;
  r.name = name;
  r.role = role;
  r.dtype = fromScalarType(t.scalar_type());
  r.shape = t.sizes().vec();
  at::Tensor c = t.contiguous().cpu();
  r.data.resize(r.byteSize());
  if (!r.data.empty())
    std::memcpy(r.data.data(), c.data_ptr(), r.data.size());
  return r;
}

at::Tensor fromRawTensor(const RawTensor &raw) {
  at::Tensor t = at::empty(raw.shape, at::TensorOptions().dtype(toScalarType(raw.dtype)));
  if (!raw.data.empty())
    std::memcpy(t.data_ptr(), raw.data.data(), raw.data.size());
  return t;
}

std::vector<double> tensorToDoubles(const at::Tensor &t) {
  at::Tensor c = t.to(at::kDouble).contiguous().cpu();
  const double *p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

CompareResult compareTensors(const at::Tensor &outT, const at::Tensor &refT, const Tolerance &tol,
                             int64_t chunk) {
  CompareResult r;
  if (outT.numel() != refT.numel()) {
    r.ok = false;
    r.reason = "element count differs: " + std::to_string(outT.numel()) + " vs reference " +
               std::to_string(refT.numel());
    return r;
  }
  at::Tensor out = outT.reshape({-1}), ref = refT.reshape({-1}).to(out.device());
  int64_t n = out.numel();
  r.numElements = n;
  chunk = std::max<int64_t>(chunk, 1);
  // Pass 1: the reference's rms over its finite elements.
  double refSq = 0;
  int64_t finiteRef = 0;
  for (int64_t lo = 0; lo < n; lo += chunk) {
    at::Tensor e = ref.slice(0, lo, std::min(n, lo + chunk)).to(at::kDouble);
    at::Tensor fin = at::isfinite(e);
    refSq += at::where(fin, e * e, at::zeros_like(e)).sum().item<double>();
    finiteRef += fin.sum().item<int64_t>();
  }
  r.refRms = finiteRef ? std::sqrt(refSq / static_cast<double>(finiteRef)) : 0;
  double bias = tol.atol + tol.atolRms * r.refRms;
  // Pass 2: the elementwise bound, as compareValues.
  double errSq = 0;
  for (int64_t lo = 0; lo < n; lo += chunk) {
    int64_t hi = std::min(n, lo + chunk);
    at::Tensor o = out.slice(0, lo, hi).to(at::kDouble), e = ref.slice(0, lo, hi).to(at::kDouble);
    at::Tensor finE = at::isfinite(e), finO = at::isfinite(o);
    at::Tensor special = at::logical_and(at::logical_not(finE),
                                         at::logical_not(at::logical_or(
                                             at::logical_and(at::isnan(e), at::isnan(o)), at::eq(o, e))));
    at::Tensor nonFinite = at::logical_and(finE, at::logical_not(finO));
    at::Tensor both = at::logical_and(finE, finO);
    at::Tensor d = at::where(both, at::abs(o - e), at::zeros_like(e));
    at::Tensor pass = tol.exact ? at::eq(o, e) : at::le(d, bias + tol.rtol * at::abs(e));
    at::Tensor mismatch = at::logical_and(both, at::logical_not(pass));
    at::Tensor bad = at::logical_or(at::logical_or(special, nonFinite), mismatch);
    r.maxAbsErr = std::max(r.maxAbsErr, d.max().item<double>());
    errSq += (d * d).sum().item<double>();
    r.numMismatches += special.sum().item<int64_t>() + mismatch.sum().item<int64_t>();
    r.numNonFinite += nonFinite.sum().item<int64_t>();
    if (r.firstBad < 0 && bad.any().item<bool>()) {
      int64_t i = bad.to(at::kByte).argmax().item<int64_t>();
      r.firstBad = lo + i;
      r.firstBadOut = o[i].item<double>();
      r.firstBadRef = e[i].item<double>();
    }
  }
  finishCompare(r, tol, errSq, refSq);
  return r;
}

at::Tensor allocateOutput(const ArgSpec &arg, const ShapeMap &shape, const at::Device &device) {
  return at::empty(arg.shape(shape), at::TensorOptions().dtype(toScalarType(arg.dtype)).device(device));
}

TensorMap generateInputs(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                         const at::Device &device) {
  validateShape(spec, shape);
  Gen g(seed, device);
  TensorMap m;
  const std::string &op = spec.name;
  auto bf16 = [](const at::Tensor &t) { return t.to(at::kBFloat16).contiguous(); };
  auto dims = [&](const char *arg) { return spec.findArg(arg)->shape(shape); };

  if (op == "rms_norm" || op == "fused_add_rms_norm") {
    int64_t t = key(shape, "T"), h = key(shape, "H");
    m["x"] = bf16(g.randn({t, h}) * g.rowScales(t));
    if (op == "fused_add_rms_norm")
      m["residual"] = bf16(g.randn({t, h}) * g.rowScales(t));
    m["w"] = bf16(1.0 + 0.5 * g.randn({h}));
    m["eps"] = scalarF64(1e-6);
  } else if (op == "silu_and_mul") {
    int64_t t = key(shape, "T"), d = key(shape, "D");
    m["x"] = bf16(g.randn({t, 2 * d}) * 2.0 * g.rowScales(t));
  } else if (op == "rotary_embedding") {
    int64_t t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"), d = key(shape, "D"),
            p = key(shape, "P");
    m["positions"] = g.randint(0, p, {t});
    m["query"] = bf16(g.randn({t, hq * d}) * g.rowScales(t));
    m["key"] = bf16(g.randn({t, hk * d}) * g.rowScales(t));
    m["head_size"] = scalarI64(d);
    at::Tensor invFreq =
        1.0 / at::pow(10000.0, at::arange(0, d, 2, g.f32().dtype(at::kDouble)) / double(d));
    at::Tensor ang = at::outer(at::arange(p, g.f32().dtype(at::kDouble)), invFreq);
    m["cos_sin_cache"] = at::cat({ang.cos(), ang.sin()}, -1).to(at::kFloat).contiguous();
    m["is_neox"] = scalarBool(true);
  } else if (op == "per_token_group_quant_fp8") {
    int64_t t = key(shape, "T"), h = key(shape, "H");
    // Per-group scales spanning 2^-8 .. 2^8 so that scale handling matters.
    at::Tensor groupScale = at::exp2(g.rand({t, h / 128, 1}) * 16.0 - 8.0);
    m["x"] = bf16((g.randn({t, h / 128, 128}) * groupScale).reshape({t, h}));
    m["group_size"] = scalarI64(128);
    m["eps"] = scalarF64(1e-10);
  } else if (op == "topk_softmax") {
    int64_t t = key(shape, "T"), e = key(shape, "E");
    // Distinct logits (gaps >= 0.05 before scaling) so that top-k has no ties;
    // rows scaled up to 16x reach the range where exp() must be stabilized.
    at::Tensor ranks = at::argsort(g.rand({t, e}), /*dim=*/int64_t(-1), /*descending=*/false).to(at::kFloat);
    at::Tensor rowScale = at::exp2(g.rand({t, 1}) * 6.0 - 2.0);
    m["gating_output"] = ((ranks * 0.1 - 0.05 * e + g.rand({t, e}) * 0.05) * rowScale).contiguous();
    m["renormalize"] = scalarBool(key(shape, "R") != 0);
  } else if (op == "gemm_bf16") {
    int64_t mm = key(shape, "M"), n = key(shape, "N"), kk = key(shape, "K");
    m["x"] = bf16(g.randn({mm, kk}) * g.rowScales(mm));
    m["w"] = bf16(g.randn({n, kk}) / std::sqrt(double(kk)));
  } else if (op == "fp8_blockscale_gemm") {
    int64_t mm = key(shape, "M"), n = key(shape, "N"), kk = key(shape, "K");
    auto [xq, sx] = quantGroup128(g.randn({mm, kk}) * g.rowScales(mm));
    auto [wq, sw] = quantBlock128(g.randn({n, kk}) / std::sqrt(double(kk)));
    m["xq"] = xq.contiguous();
    m["sx"] = sx.contiguous();
    m["wq"] = wq.contiguous();
    m["sw"] = sw.contiguous();
  } else if (op == "paged_attention_decode") {
    int64_t b = key(shape, "B"), hq = key(shape, "Hq"), d = key(shape, "D"), l = key(shape, "L");
    auto kvShape = dims("key_cache");
    int64_t nb = kvShape[0], bs = key(shape, "BS");
    int64_t maxBlocks = (l + bs - 1) / bs;
    m["query"] = bf16(g.randn({b, hq, d}));
    m["key_cache"] = bf16(g.randn(kvShape) * 2.0);
    m["value_cache"] = bf16(g.randn(kvShape));
    // Context lengths in [1, L], the first one exactly L.
    at::Tensor lens = g.randint(1, l + 1, {b});
    lens.index_put_({0}, l);
    m["context_lens"] = lens.to(at::kInt).contiguous();
    // Every sequence gets distinct blocks from a shuffled pool (block 0 unused).
    at::Tensor pool = g.randperm(nb - 1) + 1;
    m["block_tables"] = pool.narrow(0, 0, b * maxBlocks).reshape({b, maxBlocks}).to(at::kInt).contiguous();
    m["scale"] = scalarF64(1.0 / std::sqrt(double(d)));
  } else if (op == "flash_attention_prefill") {
    int64_t b = key(shape, "B"), t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
            d = key(shape, "D");
    m["q"] = bf16(g.randn({t, hq, d}));
    m["k"] = bf16(g.randn({t, hk, d}) * 2.0);
    m["v"] = bf16(g.randn({t, hk, d}));
    // B positive lengths summing to T: B-1 distinct cut points in [1, T-1].
    at::Tensor cuts = (g.randperm(t - 1) + 1).narrow(0, 0, b - 1).cpu();
    cuts = std::get<0>(cuts.sort());
    at::Tensor cu = at::cat({at::zeros({1}, cuts.options()), cuts,
                             at::full({1}, t, cuts.options())});
    int64_t maxLen = (cu.narrow(0, 1, b) - cu.narrow(0, 0, b)).max().item<int64_t>();
    m["cu_seqlens"] = cu.to(at::kInt).to(device).contiguous();
    m["max_seqlen"] = scalarI64(maxLen);
    m["scale"] = scalarF64(1.0 / std::sqrt(double(d)));
  } else if (op == "fused_moe" || op == "fp8_blockscale_fused_moe") {
    int64_t t = key(shape, "T"), h = key(shape, "H"), in = key(shape, "I"), e = key(shape, "E"),
            kk = key(shape, "K");
    m["x"] = bf16(g.randn({t, h}) * g.rowScales(t));
    if (op == "fused_moe") {
      m["w1"] = bf16(g.randn({e, 2 * in, h}) / std::sqrt(double(h)));
      m["w2"] = bf16(g.randn({e, h, in}) / std::sqrt(double(in)));
    } else {
      // Quantize expert by expert to bound the fp32 temporaries.
      std::vector<at::Tensor> w1q, w1s, w2q, w2s;
      for (int64_t i = 0; i < e; ++i) {
        auto [q1, s1] = quantBlock128(g.randn({2 * in, h}) / std::sqrt(double(h)));
        auto [q2, s2] = quantBlock128(g.randn({h, in}) / std::sqrt(double(in)));
        w1q.push_back(q1);
        w1s.push_back(s1);
        w2q.push_back(q2);
        w2s.push_back(s2);
      }
      m["w1q"] = at::stack(w1q).contiguous();
      m["w1s"] = at::stack(w1s).contiguous();
      m["w2q"] = at::stack(w2q).contiguous();
      m["w2s"] = at::stack(w2s).contiguous();
    }
    auto [w, ids] = randomRouting(g, t, e, kk);
    m["topk_weights"] = w;
    m["topk_ids"] = ids;
  } else {
    throw std::runtime_error("no input generator for operator '" + op + "'");
  }

  // Scalars live on the CPU; tensors on `device`. Check against the spec.
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor)
      continue;
    auto it = m.find(arg.name);
    if (it == m.end())
      throw std::logic_error(op + ": generator did not produce '" + arg.name + "'");
    at::Tensor &t = it->second;
    if (arg.kind == ArgKind::Double || arg.kind == ArgKind::Int || arg.kind == ArgKind::Bool) {
      t = t.cpu();
      continue;
    }
    t = t.to(device);
    if (t.scalar_type() != toScalarType(arg.dtype) || t.sizes().vec() != arg.shape(shape))
      throw std::logic_error(op + ": generated '" + arg.name + "' has dtype " +
                             c10::toString(t.scalar_type()) + " shape " +
                             shapeToString(t.sizes().vec()) + ", spec says " +
                             dtypeName(arg.dtype) + " " + shapeToString(arg.shape(shape)));
  }
  return m;
}

TensorMap computeReference(const OpSpec &spec, const ShapeMap &shape, const TensorMap &in) {
  const std::string &op = spec.name;
  TensorMap out;
  auto f32 = [](const at::Tensor &t) { return t.to(at::kFloat); };
  auto bf16 = [](const at::Tensor &t) { return t.to(at::kBFloat16).contiguous(); };

  if (op == "rms_norm") {
    out["out"] = bf16(rmsNormF32(f32(get(in, "x")), get(in, "w"), get(in, "eps").item<double>()));
  } else if (op == "fused_add_rms_norm") {
    at::Tensor r = f32(get(in, "x")) + f32(get(in, "residual"));
    out["residual_out"] = bf16(r);
    out["x_out"] = bf16(rmsNormF32(r, get(in, "w"), get(in, "eps").item<double>()));
  } else if (op == "silu_and_mul") {
    at::Tensor x = f32(get(in, "x"));
    int64_t d = key(shape, "D");
    out["out"] = bf16(at::silu(x.narrow(1, 0, d)) * x.narrow(1, d, d));
  } else if (op == "rotary_embedding") {
    int64_t d = key(shape, "D");
    at::Tensor cs = get(in, "cos_sin_cache").index_select(0, get(in, "positions"));
    at::Tensor cos = cs.narrow(1, 0, d / 2), sin = cs.narrow(1, d / 2, d / 2);
    out["query_out"] = ropeNeox(get(in, "query"), key(shape, "Hq"), d, cos, sin);
    out["key_out"] = ropeNeox(get(in, "key"), key(shape, "Hk"), d, cos, sin);
  } else if (op == "per_token_group_quant_fp8") {
    auto [q, s] = quantGroup128(get(in, "x"), get(in, "eps").item<double>());
    out["out_q"] = q.contiguous();
    out["out_s"] = s.contiguous();
  } else if (op == "topk_softmax") {
    at::Tensor p = at::softmax(f32(get(in, "gating_output")), -1);
    auto [w, ids] = p.topk(key(shape, "K"), -1, /*largest=*/true, /*sorted=*/true);
    if (get(in, "renormalize").item<bool>())
      w = w / w.sum(-1, true);
    out["topk_weights"] = w.contiguous();
    out["topk_ids"] = ids.to(at::kInt).contiguous();
  } else if (op == "gemm_bf16") {
    out["out"] = bf16(at::matmul(f32(get(in, "x")), f32(get(in, "w")).t()));
  } else if (op == "fp8_blockscale_gemm") {
    at::Tensor x = dequantGroup128(get(in, "xq"), get(in, "sx"));
    at::Tensor w = dequantBlock128(get(in, "wq"), get(in, "sw"));
    out["out"] = bf16(at::matmul(x, w.t()));
  } else if (op == "paged_attention_decode") {
    int64_t b = key(shape, "B"), hq = key(shape, "Hq"), hk = key(shape, "Hk"), d = key(shape, "D"),
            bs = key(shape, "BS");
    double scale = get(in, "scale").item<double>();
    at::Tensor lens = get(in, "context_lens").cpu().to(at::kLong);
    at::Tensor tables = get(in, "block_tables").to(at::kLong);
    const at::Tensor &kc = get(in, "key_cache"), &vc = get(in, "value_cache");
    const at::Tensor &q = get(in, "query");
    at::Tensor o = at::empty({b, hq, d}, q.options().dtype(at::kFloat));
    for (int64_t i = 0; i < b; ++i) {
      int64_t n = lens[i].item<int64_t>(), nblk = (n + bs - 1) / bs;
      at::Tensor blocks = tables[i].narrow(0, 0, nblk);
      at::Tensor k = f32(kc.index_select(0, blocks).reshape({nblk * bs, hk, d}).narrow(0, 0, n));
      at::Tensor v = f32(vc.index_select(0, blocks).reshape({nblk * bs, hk, d}).narrow(0, 0, n));
      k = k.repeat_interleave(hq / hk, 1).permute({1, 2, 0}); // [Hq, D, n]
      v = v.repeat_interleave(hq / hk, 1).permute({1, 0, 2}); // [Hq, n, D]
      at::Tensor s = at::matmul(f32(q[i]).unsqueeze(1), k) * scale; // [Hq, 1, n]
      o[i] = at::matmul(at::softmax(s, -1), v).squeeze(1);
    }
    out["out"] = bf16(o);
  } else if (op == "flash_attention_prefill") {
    int64_t b = key(shape, "B"), t = key(shape, "T"), hq = key(shape, "Hq"), hk = key(shape, "Hk"),
            d = key(shape, "D");
    double scale = get(in, "scale").item<double>();
    at::Tensor cu = get(in, "cu_seqlens").cpu().to(at::kLong);
    const at::Tensor &q = get(in, "q"), &k = get(in, "k"), &v = get(in, "v");
    at::Tensor o = at::empty({t, hq, d}, q.options().dtype(at::kFloat));
    constexpr int64_t kChunk = 1024; // query rows per step, bounds the score matrix
    for (int64_t i = 0; i < b; ++i) {
      int64_t s0 = cu[i].item<int64_t>(), n = cu[i + 1].item<int64_t>() - s0;
      at::Tensor ks = f32(k.narrow(0, s0, n)).repeat_interleave(hq / hk, 1).permute({1, 2, 0});
      at::Tensor vs = f32(v.narrow(0, s0, n)).repeat_interleave(hq / hk, 1).permute({1, 0, 2});
      for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
        int64_t rows = std::min(kChunk, n - c0);
        at::Tensor qs = f32(q.narrow(0, s0 + c0, rows)).permute({1, 0, 2}); // [Hq, rows, D]
        at::Tensor sc = at::matmul(qs, ks) * scale;                         // [Hq, rows, n]
        at::Tensor qi = at::arange(c0, c0 + rows, sc.options().dtype(at::kLong)).unsqueeze(1);
        at::Tensor kj = at::arange(0, n, sc.options().dtype(at::kLong)).unsqueeze(0);
        sc.masked_fill_(kj > qi, -std::numeric_limits<float>::infinity());
        at::Tensor oc = at::matmul(at::softmax(sc, -1), vs); // [Hq, rows, D]
        o.narrow(0, s0 + c0, rows).copy_(oc.permute({1, 0, 2}));
      }
    }
    out["out"] = bf16(o);
  } else if (op == "fused_moe") {
    const at::Tensor &w1 = get(in, "w1"), &w2 = get(in, "w2");
    out["out"] = moeRef(get(in, "x"), key(shape, "E"), get(in, "topk_weights"), get(in, "topk_ids"),
                        [&](int64_t e) { return std::make_pair(f32(w1[e]), f32(w2[e])); },
                        /*quantActivations=*/false);
  } else if (op == "fp8_blockscale_fused_moe") {
    const at::Tensor &w1q = get(in, "w1q"), &w1s = get(in, "w1s"), &w2q = get(in, "w2q"),
                     &w2s = get(in, "w2s");
    out["out"] = moeRef(get(in, "x"), key(shape, "E"), get(in, "topk_weights"), get(in, "topk_ids"),
                        [&](int64_t e) {
                          return std::make_pair(dequantBlock128(w1q[e], w1s[e]),
                                                dequantBlock128(w2q[e], w2s[e]));
                        },
                        /*quantActivations=*/true);
  } else {
    throw std::runtime_error("no reference for operator '" + op + "'");
  }
  return out;
}

TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                           const at::Device &device) {
  TensorMap in = generateInputs(spec, shape, seed, device);
  TensorMap ref = computeReference(spec, shape, in);
  TensorDir td;
  td.op = spec.name;
  td.shape = shapeToJson(shape);
  td.seed = static_cast<int64_t>(seed);
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor)
      continue;
    td.tensors.push_back(toRawTensor(arg.name, "input", in.at(arg.name)));
  }
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    std::string name = OpSpec::outputName(arg);
    RawTensor r = toRawTensor(name, "output", ref.at(name));
    if (r.dtype != arg.dtype || r.shape != arg.shape(shape))
      throw std::logic_error(spec.name + ": reference output '" + name + "' does not match its spec");
    if (arg.kind == ArgKind::InOutTensor)
      r.alias = arg.name;
    td.tensors.push_back(std::move(r));
  }
  return td;
}

} // namespace atrex::rt

#include "atrex-rt/Reference.h"

namespace atrex::rt {
TensorDir makeReferenceDir(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                           const std::string &device) {
  at::Device dev(device);
  if (dev.is_cuda() && !at::hasCUDA())
    throw std::runtime_error("device '" + device + "' requested, but no CUDA device is available");
  TensorDir td = makeReferenceDir(spec, shape, seed, dev);
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    const RawTensor *r = td.find(OpSpec::outputName(arg));
    std::vector<double> ref = r->toDoubles();
    double c = 0;
    if (constantWouldPass(ref.data(), ref.size(), arg.tol, &c))
      throw std::runtime_error("operator '" + spec.name + "', shape " + shapeMapToString(shape) +
                               ", seed " + std::to_string(seed) + ": invalid problem instance: a "
                               "constant '" + r->name + "' (every element " + std::to_string(c) +
                               ") would pass its tolerance");
  }
  return td;
}

Json validateProblem(const OpSpec &spec, const ShapeMap &shape, uint64_t seed,
                     const std::string &device) {
  at::Device dev(device);
  if (dev.is_cuda() && !at::hasCUDA())
    throw std::runtime_error("device '" + device + "' requested, but no CUDA device is available");
  validateShape(spec, shape);
  TensorMap in = generateInputs(spec, shape, seed, dev);
  TensorMap ref = computeReference(spec, shape, in);
  Json reasons = Json::array(), inputs = Json::object(), outputs = Json::object();
  bool ok = true;
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor || !in.count(arg.name))
      continue;
    const at::Tensor &t = in.at(arg.name);
    if (!t.is_floating_point() || t.numel() == 0)
      continue;
    at::Tensor f = t.to(at::kFloat);
    bool finite = at::isfinite(f).all().item<bool>();
    bool constant = t.numel() > 1 && (f.max() == f.min()).item<bool>();
    Json ij = Json::object();
    ij.set("finite", finite);
    ij.set("constant", constant);
    inputs.set(arg.name, ij);
    if (!finite)
      reasons.push("input '" + arg.name + "' has non-finite values");
    if (constant)
      reasons.push("input '" + arg.name + "' is constant");
    ok = ok && finite && !constant;
  }
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    std::string name = OpSpec::outputName(arg);
    std::vector<double> r = tensorToDoubles(ref.at(name));
    double c = 0;
    bool passes = constantWouldPass(r.data(), r.size(), arg.tol, &c);
    Json oj = Json::object();
    oj.set("constant_passes", passes);
    if (passes) {
      oj.set("constant", c);
      reasons.push("a constant '" + name + "' (every element " + std::to_string(c) +
                   ") passes its tolerance");
      ok = false;
    }
    outputs.set(name, oj);
  }
  Json j = Json::object();
  j.set("ok", ok);
  j.set("reasons", reasons);
  j.set("inputs", inputs);
  j.set("outputs", outputs);
  return j;
}
} // namespace atrex::rt
