//===- OpsTest.cpp - libtorch references and generators on the CPU --------===//
//
// Each reference is checked against an independent, loop-based computation
// in double precision at a small shape, and every generator for determinism,
// dtypes, shapes and the all-zeros rule.
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Ops.h"
#include "atrex-rt/Reference.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>

using namespace atrex::rt;

namespace {
const at::Device kCpu("cpu");

struct Case {
  const OpSpec *spec;
  ShapeMap shape;
  TensorMap in, ref;
};
Case make(const std::string &op, ShapeMap shape = {}, uint64_t seed = 3) {
  Case c;
  c.spec = findOpSpec(op);
  c.shape = shape.empty() ? c.spec->exampleShape : shape;
  c.in = generateInputs(*c.spec, c.shape, seed, kCpu);
  c.ref = computeReference(*c.spec, c.shape, c.in);
  return c;
}
at::Tensor d(const at::Tensor &t) { return t.to(at::kDouble).contiguous(); }
bool sameBytes(const at::Tensor &a, const at::Tensor &b) {
  return at::equal(a.reshape({-1}).contiguous().view(at::kByte),
                   b.reshape({-1}).contiguous().view(at::kByte));
}

// Checks `ref` against a double-precision expectation with the op's tolerance.
void expectClose(const Case &c, const std::string &output,
                 const at::Tensor &expected) {
  const ArgSpec *arg = nullptr;
  for (const ArgSpec &a : c.spec->args)
    if (OpSpec::outputName(a) == output)
      arg = &a;
  ASSERT_NE(arg, nullptr) << output;
  CompareResult r = compareValues(tensorToDoubles(c.ref.at(output)),
                                  tensorToDoubles(expected), arg->tol);
  EXPECT_TRUE(r.ok) << c.spec->name << "." << output << ": " << r.reason
                    << " rel_norm " << r.relNorm;
}
} // namespace

class EveryOp : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryOp, GeneratorAndReferenceFollowTheSpec) {
  const OpSpec &spec = *findOpSpec(GetParam());
  TensorMap in = generateInputs(spec, spec.exampleShape, 11, kCpu);
  TensorMap again = generateInputs(spec, spec.exampleShape, 11, kCpu);
  TensorMap other = generateInputs(spec, spec.exampleShape, 12, kCpu);
  TensorMap before;
  for (auto &[k, v] : in)
    before[k] = v.clone();
  TensorMap ref = computeReference(spec, spec.exampleShape, in);
  bool anyDiffers = false;
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind == ArgKind::OutTensor)
      continue;
    const at::Tensor &t = in.at(arg.name);
    EXPECT_TRUE(sameBytes(t, again.at(arg.name))) << arg.name;
    anyDiffers |= !sameBytes(t, other.at(arg.name));
    // The reference leaves its inputs alone.
    EXPECT_TRUE(sameBytes(t, before.at(arg.name))) << arg.name;
  }
  EXPECT_TRUE(anyDiffers) << "seed does not change the inputs";
  for (const ArgSpec &arg : spec.args) {
    if (arg.kind != ArgKind::OutTensor && arg.kind != ArgKind::InOutTensor)
      continue;
    const at::Tensor &r = ref.at(OpSpec::outputName(arg));
    EXPECT_EQ(r.scalar_type(), toScalarType(arg.dtype)) << arg.name;
    EXPECT_EQ(r.sizes().vec(), arg.shape(spec.exampleShape)) << arg.name;
    std::vector<double> v = tensorToDoubles(r);
    for (double x : v)
      ASSERT_TRUE(std::isfinite(x)) << arg.name;
    EXPECT_FALSE(zerosWouldPass(v.data(), v.size(), arg.tol)) << arg.name;
  }
}

TEST_P(EveryOp, TensorDirRoundTripAndCheck) {
  const OpSpec &spec = *findOpSpec(GetParam());
  std::string dir = ::testing::TempDir() + "/atrex-ops-" + spec.name;
  std::filesystem::remove_all(dir);
  TensorDir td =
      makeReferenceDir(spec, spec.exampleShape, 5, std::string("cpu"));
  writeTensorDir(dir, td);
  TensorDir back = readTensorDir(dir);
  EXPECT_EQ(back.tensors.size(), td.tensors.size());
  EXPECT_TRUE(checkTensorDirs(spec, td, back).get("ok")->asBool());
  // Corrupt the first output element: the check must fail and say where.
  for (RawTensor &t : back.tensors)
    if (t.role == "output") {
      std::fill(t.data.begin(), t.data.begin() + dtypeSize(t.dtype), 0x7f);
      break;
    }
  Json r = checkTensorDirs(spec, td, back);
  EXPECT_FALSE(r.get("ok")->asBool()) << r.dump();
  for (const RawTensor &t : back.tensors) {
    at::Tensor x = fromRawTensor(t);
    EXPECT_EQ(x.sizes().vec(), t.shape);
  }
}

// Every operator with an implementation file (runtime/lib/ops/<op>.cpp); the
// test below checks that these are exactly the operators of the table.
INSTANTIATE_TEST_SUITE_P(Ops, EveryOp,
                         ::testing::ValuesIn(registeredOperators()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

// The registry covers the generated table and the table covers the MLIR
// definitions: an operator whose definition, table entry or implementation
// file is missing fails here.
TEST(OpRegistry, CoversEveryDefinition) {
  std::vector<std::string> table;
  for (const OpSpec &spec : allOpSpecs()) {
    table.push_back(spec.name);
    for (const ArgSpec &arg : spec.args)
      if (arg.kind == ArgKind::OutTensor || arg.kind == ArgKind::InOutTensor)
        EXPECT_TRUE(arg.hasTolerance) << spec.name << "." << arg.name;
  }
  EXPECT_EQ(registeredOperators(), table);
  std::vector<std::string> definitions;
  for (const auto &entry : std::filesystem::directory_iterator(
           ATREX_RT_SOURCE_DIR "/../suites/atrex-serve/ops"))
    if (entry.path().extension() == ".mlir")
      definitions.push_back(entry.path().stem().string());
  std::sort(definitions.begin(), definitions.end());
  EXPECT_EQ(definitions, table);
  EXPECT_GE(table.size(), 12u);
}

// checkTensorDirs with the tolerance silu_and_mul.cpp registers.
TEST(OpSpecs, CheckTensorDirs) {
  const OpSpec &s = *findOpSpec("silu_and_mul");
  auto bf16 = [](std::vector<uint16_t> v) {
    RawTensor t{"out", "output", DType::BF16, {static_cast<int64_t>(v.size())},
                {},    ""};
    t.data.assign(reinterpret_cast<uint8_t *>(v.data()),
                  reinterpret_cast<uint8_t *>(v.data()) + 2 * v.size());
    return t;
  };
  TensorDir ref, cand;
  ref.tensors = {bf16({0x3f80, 0x4000})}; // 1, 2
  cand.tensors = {bf16({0x3f80, 0x4000})};
  EXPECT_TRUE(checkTensorDirs(s, ref, cand).get("ok")->asBool());
  cand.tensors = {bf16({0x3f80, 0x4020})}; // 1, 2.5
  Json r = checkTensorDirs(s, ref, cand);
  EXPECT_FALSE(r.get("ok")->asBool());
  EXPECT_NE(
      r.getString("error", "").find("out: 1 of 2 elements outside tolerance"),
      std::string::npos)
      << r.dump();
  cand.tensors[0].dtype = DType::F16;
  EXPECT_NE(checkTensorDirs(s, ref, cand)
                .getString("error", "")
                .find("dtype f16 differs"),
            std::string::npos);
  cand.tensors = {};
  EXPECT_NE(checkTensorDirs(s, ref, cand)
                .getString("error", "")
                .find("has no tensor 'out'"),
            std::string::npos);
  ref.tensors[0].dtype = DType::F16;
  EXPECT_NE(checkTensorDirs(s, ref, cand)
                .getString("error", "")
                .find("differs from the operator's bf16"),
            std::string::npos);
}

TEST(Ops, Fp8DecodingMatchesTorch) {
  at::Tensor codes =
      at::arange(256, at::TensorOptions().dtype(at::kInt)).to(at::kByte);
  for (auto [st, decode] : {std::make_pair(at::kFloat8_e4m3fn, &decodeF8E4M3),
                            std::make_pair(at::kFloat8_e5m2, &decodeF8E5M2)}) {
    at::Tensor f = codes.view(st).to(at::kDouble);
    for (int i = 0; i < 256; ++i) {
      double want = f[i].item<double>(), got = decode(static_cast<uint8_t>(i));
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << i;
      else
        EXPECT_EQ(got, want) << i;
    }
  }
}

TEST(Ops, RmsNormByLoops) {
  Case c = make("rms_norm", {{"T", 3}, {"H", 512}});
  at::Tensor x = d(c.in["x"]), w = d(c.in["w"]), e = at::empty_like(x);
  double eps = c.in["eps"].item<double>();
  for (int t = 0; t < 3; ++t) {
    double s = 0;
    for (int h = 0; h < 512; ++h)
      s += x[t][h].item<double>() * x[t][h].item<double>();
    double inv = 1 / std::sqrt(s / 512 + eps);
    for (int h = 0; h < 512; ++h)
      e[t][h] = x[t][h].item<double>() * inv * w[h].item<double>();
  }
  expectClose(c, "out", e);
}

TEST(Ops, FusedAddRmsNormByLoops) {
  Case c = make("fused_add_rms_norm", {{"T", 2}, {"H", 256}});
  at::Tensor r = d(c.in["x"]) + d(c.in["residual"]);
  at::Tensor inv =
      1 / (r.pow(2).mean(-1, true) + c.in["eps"].item<double>()).sqrt();
  expectClose(c, "residual_out", r);
  expectClose(c, "x_out", r * inv * d(c.in["w"]));
}

TEST(Ops, SiluAndMulByLoops) {
  Case c = make("silu_and_mul", {{"T", 2}, {"D", 64}});
  at::Tensor x = d(c.in["x"]), e = at::empty({2, 64}, x.options());
  for (int t = 0; t < 2; ++t)
    for (int i = 0; i < 64; ++i) {
      double a = x[t][i].item<double>(), b = x[t][64 + i].item<double>();
      e[t][i] = a / (1 + std::exp(-a)) * b;
    }
  expectClose(c, "out", e);
}

TEST(Ops, RotaryByLoops) {
  Case c = make("rotary_embedding",
                {{"T", 3}, {"Hq", 2}, {"Hk", 1}, {"D", 8}, {"P", 16}});
  at::Tensor q = d(c.in["query"]), pos = c.in["positions"], e = q.clone();
  for (int t = 0; t < 3; ++t) {
    int64_t p = pos[t].item<int64_t>();
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 4; ++i) {
        double ang = p * std::pow(10000.0, -2.0 * i / 8);
        double x1 = q[t][h * 8 + i].item<double>(),
               x2 = q[t][h * 8 + 4 + i].item<double>();
        e[t][h * 8 + i] = x1 * std::cos(ang) - x2 * std::sin(ang);
        e[t][h * 8 + 4 + i] = x2 * std::cos(ang) + x1 * std::sin(ang);
      }
  }
  expectClose(c, "query_out", e);
}

TEST(Ops, PerTokenGroupQuantByLoops) {
  Case c = make("per_token_group_quant_fp8", {{"T", 2}, {"H", 256}});
  at::Tensor x = d(c.in["x"]), s = at::empty({2, 2}, x.options()),
             q = at::empty_like(x);
  for (int t = 0; t < 2; ++t)
    for (int g = 0; g < 2; ++g) {
      double amax = 0;
      for (int i = 0; i < 128; ++i)
        amax = std::max(amax, std::fabs(x[t][g * 128 + i].item<double>()));
      double sc = std::max(amax, 1e-10) / 448.0;
      s[t][g] = sc;
      for (int i = 0; i < 128; ++i)
        q[t][g * 128 + i] = x[t][g * 128 + i].item<double>() / sc;
    }
  expectClose(c, "out_s", s);
  // The loop's quotients, rounded to e4m3 once.
  expectClose(c, "out_q", q.to(at::kFloat8_e4m3fn).to(at::kDouble));
}

TEST(Ops, TopkSoftmaxByLoops) {
  Case c = make("topk_softmax", {{"T", 3}, {"E", 16}, {"K", 4}, {"R", 0}});
  at::Tensor g = d(c.in["gating_output"]);
  at::Tensor ew = at::empty({3, 4}, g.options()),
             ei = at::empty({3, 4}, g.options());
  for (int t = 0; t < 3; ++t) {
    std::vector<std::pair<double, int>> p;
    double mx = g[t].max().item<double>(), den = 0;
    for (int e = 0; e < 16; ++e)
      den += std::exp(g[t][e].item<double>() - mx);
    for (int e = 0; e < 16; ++e)
      p.push_back({std::exp(g[t][e].item<double>() - mx) / den, e});
    std::sort(p.begin(), p.end(),
              [](auto a, auto b) { return a.first > b.first; });
    for (int j = 0; j < 4; ++j) {
      ew[t][j] = p[j].first;
      ei[t][j] = p[j].second;
    }
  }
  expectClose(c, "topk_weights", ew);
  expectClose(c, "topk_ids", ei);
}

// Hand-made rows with ties, zeros of both signs and the top_p cut: the
// order is probability descending, ties by the lower index (regression for
// the radix-sorted rank order that replaced std::stable_sort).
TEST(Ops, SamplingOrderTiesAndCuts) {
  const OpSpec *spec = findOpSpec("top_k_top_p_sampling");
  ASSERT_NE(spec, nullptr);
  ShapeMap shape{{"B", 4}, {"V", 6}};
  TensorMap in;
  in["probs"] =
      at::tensor({0.25f, 0.0f,  0.25f, -0.0f, 0.25f, 0.25f, // ties
                  0.1f,  0.4f,  0.1f,  0.3f,  0.0f,  0.1f,  // top_p
                  0.0f,  -0.0f, 0.5f,  0.0f,  0.5f,  0.0f,  // top_k 3
                  0.2f,  0.2f,  0.2f,  0.2f,  0.2f,  0.0f}) // disabled
          .reshape({4, 6});
  in["top_k"] = at::tensor({2, 6, 3, -1}, at::kInt);
  // Row 1: masses 0.4, 0.3, 0.1 (index 0), ...; top_p 0.75 keeps 0.4+0.3+0.1.
  in["top_p"] = at::tensor({1.0f, 0.75f, 1.0f, 1.0f});
  // Row 0 keeps {0, 2}: 0.7 of 0.5 falls on token 2. Row 1 keeps {0, 1, 3}
  // (0.8): target 0.05 -> token 0. Row 2 keeps {2, 4, 0} (top 3, the zero of
  // the lowest index): target 0.99 -> token 4. Row 3: the least prefix
  // reaching all the mass is the five 0.2s (the zero adds nothing); 1.0 of it
  // exceeds no prefix -> the last kept token, 4.
  in["uniform"] = at::tensor({0.7f, 0.0625f, 0.99f, 1.0f});
  TensorMap ref = computeReference(*spec, shape, in);
  at::Tensor s = ref.at("samples").to(at::kLong);
  EXPECT_EQ(s[0].item<int64_t>(), 2);
  EXPECT_EQ(s[1].item<int64_t>(), 0);
  EXPECT_EQ(s[2].item<int64_t>(), 4);
  EXPECT_EQ(s[3].item<int64_t>(), 4);
}

TEST(Ops, GemmByLoops) {
  Case c = make("gemm_bf16", {{"M", 3}, {"N", 5}, {"K", 64}});
  at::Tensor x = d(c.in["x"]), w = d(c.in["w"]),
             e = at::empty({3, 5}, x.options());
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 5; ++n) {
      double s = 0;
      for (int k = 0; k < 64; ++k)
        s += x[m][k].item<double>() * w[n][k].item<double>();
      e[m][n] = s;
    }
  expectClose(c, "out", e);
}

TEST(Ops, Fp8GemmByDequantization) {
  Case c = make("fp8_blockscale_gemm", {{"M", 2}, {"N", 128}, {"K", 256}});
  at::Tensor xq = d(c.in["xq"]), sx = d(c.in["sx"]), wq = d(c.in["wq"]),
             sw = d(c.in["sw"]);
  at::Tensor x = xq.clone(), w = wq.clone();
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < 256; ++k)
      x[m][k] = xq[m][k].item<double>() * sx[m][k / 128].item<double>();
  for (int n = 0; n < 128; ++n)
    for (int k = 0; k < 256; ++k)
      w[n][k] = wq[n][k].item<double>() * sw[n / 128][k / 128].item<double>();
  expectClose(c, "out", at::matmul(x, w.t()));
}

// Attention written token by token (online over keys), in double precision.
static at::Tensor attendOne(const at::Tensor &q,
                            const std::vector<at::Tensor> &ks,
                            const std::vector<at::Tensor> &vs, double scale) {
  std::vector<double> s;
  for (const auto &k : ks)
    s.push_back((q * k).sum().item<double>() * scale);
  double mx = *std::max_element(s.begin(), s.end()), den = 0;
  for (double &x : s)
    den += (x = std::exp(x - mx));
  at::Tensor o = at::zeros_like(q);
  for (size_t j = 0; j < vs.size(); ++j)
    o += vs[j] * (s[j] / den);
  return o;
}

TEST(Ops, PagedDecodeByLoops) {
  Case c =
      make("paged_attention_decode",
           {{"B", 2}, {"Hq", 4}, {"Hk", 2}, {"D", 16}, {"BS", 4}, {"L", 10}});
  at::Tensor q = d(c.in["query"]), kc = d(c.in["key_cache"]),
             vc = d(c.in["value_cache"]);
  at::Tensor bt = c.in["block_tables"], lens = c.in["context_lens"];
  double scale = c.in["scale"].item<double>();
  at::Tensor e = at::empty({2, 4, 16}, q.options());
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 4; ++h) {
      std::vector<at::Tensor> ks, vs;
      for (int t = 0; t < lens[b].item<int>(); ++t) {
        int blk = bt[b][t / 4].item<int>();
        ks.push_back(kc[blk][t % 4][h / 2]);
        vs.push_back(vc[blk][t % 4][h / 2]);
      }
      e[b][h] = attendOne(q[b][h], ks, vs, scale);
    }
  expectClose(c, "out", e);
}

TEST(Ops, PrefillByLoops) {
  Case c = make("flash_attention_prefill",
                {{"B", 2}, {"T", 9}, {"Hq", 2}, {"Hk", 1}, {"D", 16}});
  at::Tensor q = d(c.in["q"]), k = d(c.in["k"]), v = d(c.in["v"]),
             cu = c.in["cu_seqlens"];
  double scale = c.in["scale"].item<double>();
  at::Tensor e = at::empty({9, 2, 16}, q.options());
  for (int b = 0; b < 2; ++b) {
    int s0 = cu[b].item<int>(), s1 = cu[b + 1].item<int>();
    for (int i = s0; i < s1; ++i)
      for (int h = 0; h < 2; ++h) {
        std::vector<at::Tensor> ks, vs;
        for (int j = s0; j <= i; ++j) {
          ks.push_back(k[j][0]);
          vs.push_back(v[j][0]);
        }
        e[i][h] = attendOne(q[i][h], ks, vs, scale);
      }
  }
  EXPECT_EQ(c.in["max_seqlen"].item<int64_t>(),
            (cu.narrow(0, 1, 2) - cu.narrow(0, 0, 2)).max().item<int>());
  expectClose(c, "out", e);
}

TEST(Ops, FusedMoeByLoops) {
  Case c =
      make("fused_moe", {{"T", 3}, {"H", 32}, {"I", 16}, {"E", 4}, {"K", 2}});
  at::Tensor x = d(c.in["x"]), w1 = d(c.in["w1"]), w2 = d(c.in["w2"]);
  at::Tensor tw = d(c.in["topk_weights"]), ti = c.in["topk_ids"];
  at::Tensor e = at::zeros({3, 32}, x.options());
  for (int t = 0; t < 3; ++t)
    for (int j = 0; j < 2; ++j) {
      int ex = ti[t][j].item<int>();
      at::Tensor h = at::mv(w1[ex], x[t]);
      at::Tensor g = h.narrow(0, 0, 16), u = h.narrow(0, 16, 16);
      at::Tensor a = g / (1 + (-g).exp()) * u;
      e[t] += at::mv(w2[ex], a) * tw[t][j].item<double>();
    }
  expectClose(c, "out", e);
}

// grouped_gemm_bf16's generator: offs are cumulative row ends ending at T,
// exactly floor(E/4) experts are empty when T >= n = E - floor(E/4) (0 first,
// then E-1, never (E-1)/2), and exactly min(T, n) experts own rows (what a
// facts model states as U_groups), one row each when T < n.
TEST(Ops, GroupedGemmGroupsAsDocumented) {
  const OpSpec &spec = *findOpSpec("grouped_gemm_bf16");
  for (int64_t e : {1, 2, 3, 4, 5, 7, 8, 9, 16, 128})
    for (int64_t t : {1, 2, 5, 6, 7, 37, 96, 97, 512})
      for (uint64_t seed : {1, 2}) {
        ShapeMap shape = {{"T", t}, {"N", 2}, {"K", 2}, {"E", e}};
        at::Tensor offs = generateInputs(spec, shape, seed, kCpu).at("offs");
        SCOPED_TRACE("T=" + std::to_string(t) + " E=" + std::to_string(e) +
                     " seed " + std::to_string(seed));
        ASSERT_EQ(offs.scalar_type(), at::kInt);
        ASSERT_EQ(offs.sizes().vec(), std::vector<int64_t>{e});
        int64_t n = e - e / 4, owners = 0, previous = 0;
        std::vector<int64_t> rows;
        for (int64_t x = 0; x < e; ++x) {
          int64_t end = offs[x].item<int64_t>();
          ASSERT_GE(end, previous) << "expert " << x;
          rows.push_back(end - previous);
          owners += end > previous;
          previous = end;
        }
        EXPECT_EQ(previous, t);
        EXPECT_EQ(owners, std::min(t, n));
        if (e >= 4)
          EXPECT_EQ(rows[0], 0);
        if (e >= 8)
          EXPECT_EQ(rows[e - 1], 0);
        if (t >= n) {
          EXPECT_EQ(std::count(rows.begin(), rows.end(), 0), e / 4);
          EXPECT_GT(rows[(e - 1) / 2], 0);
        } else {
          EXPECT_EQ(std::count(rows.begin(), rows.end(), 1), t);
        }
      }
}

TEST(Ops, ReferenceDirRejectsBadDevice) {
  const OpSpec &s = *findOpSpec("rms_norm");
  EXPECT_THROW(makeReferenceDir(s, s.exampleShape, 1, std::string("bogus")),
               std::exception);
}

// The gate compares on the device with compareTensors; it must agree with
// compareValues (the definition) field by field, chunked or not, for every
// kind of element: close, outside the bound, NaN/Inf in either tensor.
TEST(CompareTensors, AgreesWithCompareValues) {
  at::manual_seed(11);
  int64_t n = 1000;
  at::Tensor ref = at::randn({n}, at::kDouble);
  ref[3] = NAN;
  ref[4] = INFINITY;
  ref[5] = -INFINITY;
  ref[6] = NAN;
  struct Tweak {
    const char *what;
    std::function<void(at::Tensor &)> apply;
  };
  std::vector<Tweak> tweaks = {
      {"equal", [](at::Tensor &) {}},
      {"small noise", [](at::Tensor &o) { o.add_(at::randn_like(o) * 1e-4); }},
      {"mismatches",
       [](at::Tensor &o) { o[100] = 5.0, o[200] = -7.0, o[999] = 3.0; }},
      {"nan where finite",
       [](at::Tensor &o) { o[50] = NAN, o[700] = INFINITY; }},
      {"special differs", [](at::Tensor &o) { o[3] = 1.0, o[4] = -INFINITY; }},
      {"large noise", [](at::Tensor &o) { o.add_(at::randn_like(o) * 0.5); }},
  };
  std::vector<Tolerance> tols(3);
  tols[0].atol = 1e-3, tols[0].rtol = 1e-2, tols[0].maxRelNorm = 1e-2;
  tols[1].atol = 1e-3, tols[1].atolRms = 5e-2, tols[1].maxMismatchFrac = 0.005,
  tols[1].maxRelNorm = 0.1;
  tols[2].exact = true;
  for (const Tweak &t : tweaks)
    for (const Tolerance &tol : tols)
      for (at::ScalarType st : {at::kDouble, at::kBFloat16, at::kFloat})
        for (int64_t chunk : {int64_t(1) << 26, int64_t(64), int64_t(7)}) {
          at::Tensor out = ref.clone();
          t.apply(out);
          at::Tensor o = out.to(st).reshape({10, 100}),
                     e = ref.to(st).reshape({10, 100});
          CompareResult want =
              compareValues(tensorToDoubles(o), tensorToDoubles(e), tol);
          CompareResult got = compareTensors(o, e, tol, chunk);
          std::string ctx = std::string(t.what) + ", " + c10::toString(st) +
                            ", chunk " + std::to_string(chunk) + ", exact " +
                            std::to_string(tol.exact);
          EXPECT_EQ(got.ok, want.ok) << ctx;
          EXPECT_EQ(got.reason, want.reason) << ctx;
          EXPECT_EQ(got.numElements, want.numElements) << ctx;
          EXPECT_EQ(got.numMismatches, want.numMismatches) << ctx;
          EXPECT_EQ(got.numNonFinite, want.numNonFinite) << ctx;
          EXPECT_EQ(got.firstBad, want.firstBad) << ctx;
          if (want.firstBad >= 0) {
            EXPECT_TRUE(
                got.firstBadOut == want.firstBadOut ||
                (std::isnan(got.firstBadOut) && std::isnan(want.firstBadOut)))
                << ctx;
            EXPECT_TRUE(
                got.firstBadRef == want.firstBadRef ||
                (std::isnan(got.firstBadRef) && std::isnan(want.firstBadRef)))
                << ctx;
          }
          EXPECT_DOUBLE_EQ(got.maxAbsErr, want.maxAbsErr) << ctx;
          EXPECT_NEAR(got.relNorm, want.relNorm,
                      1e-12 * std::max(1.0, want.relNorm))
              << ctx;
          EXPECT_NEAR(got.refRms, want.refRms, 1e-12) << ctx;
        }
  // Integer outputs (expert indices) and differing element counts.
  at::Tensor ia = at::arange(20, at::kInt), ib = ia.clone();
  ib[7] = 99;
  Tolerance ex;
  ex.exact = true;
  CompareResult ri = compareTensors(ib, ia, ex);
  EXPECT_FALSE(ri.ok);
  EXPECT_EQ(ri.firstBad, 7);
  EXPECT_EQ(ri.reason,
            compareValues(tensorToDoubles(ib), tensorToDoubles(ia), ex).reason);
  EXPECT_EQ(compareTensors(ia, ia.slice(0, 0, 10), ex).reason,
            "element count differs: 20 vs reference 10");
}
