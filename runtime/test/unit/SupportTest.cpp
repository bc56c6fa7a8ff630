//===- SupportTest.cpp - JSON, tensor dirs, comparison, specs, plans ------===//
#include "atrex-rt/Attribution.h"
#include "atrex-rt/Compare.h"
#include "atrex-rt/Compile.h"
#include "atrex-rt/GateRun.h"
#include "atrex-rt/Json.h"
#include "atrex-rt/Measurement.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/Protocol.h"
#include "atrex-rt/Stage.h"
#include "atrex-rt/TensorDir.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace atrex::rt;
namespace fs = std::filesystem;

namespace {
std::string tempDir(const std::string &name) {
  std::string d = ::testing::TempDir() + "/atrex-rt-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
template <typename Fn> std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}
} // namespace

// ---- JSON ------------------------------------------------------------------
TEST(Json, RoundTrip) {
  std::string text = R"({"a":1,"b":[true,null,2.5,"x\n\"y\""],"c":{"d":-3}})";
  Json j = Json::parse(text);
  EXPECT_EQ(j.dump(), text);
  EXPECT_EQ(j.get("c")->getInt("d", 0), -3);
  EXPECT_EQ(Json::parse(j.dump(2)), j);
  EXPECT_EQ(Json::parse("\"\\u00e9\\ud83d\\ude00\"").asString(),
            "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(Json, ErrorsNameLineAndColumn) {
  // nlohmann's message, placed at the token that failed.
  EXPECT_EQ(errorOf([] { Json::parse("{\n  \"a\": tru\n}", "plan.json"); }),
            "plan.json:2:8: syntax error while parsing value - invalid "
            "literal; last read: '\"a\": tru<U+000A>'");
  EXPECT_EQ(errorOf([] { Json::parse("{\"a\":1,\n\"a\":2}"); }),
            "<json>:2:4: duplicate key 'a'");
  EXPECT_EQ(errorOf([] { Json::parse("[1,2"); }),
            "<json>:1:5: syntax error while parsing array - unexpected end of "
            "input; expected ']'");
  EXPECT_EQ(errorOf([] { Json::parse("1 2"); }),
            "<json>:1:3: syntax error while parsing value - unexpected number "
            "literal; expected end of input");
  EXPECT_EQ(errorOf([] { Json::parse("[1,,2]"); }),
            "<json>:1:4: syntax error while parsing value - unexpected ','; "
            "expected '[', '{', or a literal");
  EXPECT_EQ(errorOf([] { Json::parse("", "empty.json"); }),
            "empty.json:1:1: syntax error while parsing value - unexpected end "
            "of input; expected '[', '{', or a "
            "literal");
}

TEST(Json, ReaderLimits) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_EQ(errorOf([&] { Json::parse(nested(256)); }), "");
  EXPECT_EQ(errorOf([&] { Json::parse(nested(257), "deep.json"); }),
            "deep.json:1:257: nesting too deep (more than 256 levels)");
  EXPECT_NE(errorOf([] {
              Json::parse("[1e400]");
            }).find("<json>:1:2: number overflow parsing '1e400'"),
            std::string::npos);
  EXPECT_NE(
      errorOf([] { Json::parse("\"a\xff\""); }).find("ill-formed UTF-8 byte"),
      std::string::npos);
  EXPECT_NE(errorOf([] { Json::parse("\"\\ud83d\""); }).find("surrogate"),
            std::string::npos);
  // Integers beyond int64 read as doubles, as before nlohmann.
  EXPECT_TRUE(Json::parse("9223372036854775807").isInt());
  EXPECT_EQ(Json::parse("9223372036854775807").asInt(), INT64_MAX);
  EXPECT_FALSE(Json::parse("9223372036854775808").isInt());
  EXPECT_EQ(Json::parse("-9223372036854775808").asInt(), INT64_MIN);
  EXPECT_EQ(Json::parse("-5").asInt(), -5);
}

TEST(Json, WriterFormat) {
  // 9 significant digits; integral doubles keep their ".0".
  EXPECT_EQ(Json(0.1 + 0.2).dump(), "0.3");
  EXPECT_EQ(Json(1.0 / 3).dump(), "0.333333333");
  EXPECT_EQ(Json(1e-5).dump(), "1e-05");
  EXPECT_EQ(Json(1e20).dump(), "1e+20");
  EXPECT_EQ(Json(-0.0).dump(), "-0.0");
  EXPECT_EQ(Json(INFINITY).dump(), "null");
  // Bytes that are not UTF-8 are written as U+FFFD; control bytes escaped.
  EXPECT_EQ(Json(std::string("a\xff"
                             "b\x01\n"))
                .dump(),
            "\"a\xef\xbf\xbd"
            "b\\u0001\\n\"");
  Json j = Json::object();
  j.set("b", 1);
  j.set("a", Json::array());
  j["a"].push(Json::object());
  j.set("b", "x"); // keeps its place
  EXPECT_EQ(j.dump(), R"({"b":"x","a":[{}]})");
  EXPECT_EQ(j.dump(2), "{\n  \"b\": \"x\",\n  \"a\": [\n    {}\n  ]\n}");
}

TEST(Json, TypedAccessorsComplain) {
  Json j = Json::parse(R"({"n":"x"})");
  EXPECT_EQ(errorOf([&] { j.getInt("n", 0); }),
            "key 'n': expected an integer, found string");
  EXPECT_EQ(j.getInt("missing", 42), 42);
  Json d(std::nan(""));
  EXPECT_EQ(d.dump(), "null");
  EXPECT_EQ(Json(2.0).dump(), "2.0");
}

// ---- hashing
// -----------------------------------------------------------------
TEST(Hash, Fnv1a64KnownValues) {
  EXPECT_EQ(fnv1a64("", 0), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar", 6), 0x85944171f73967e8ULL);
  EXPECT_EQ(hashHex(0xabcULL), "0000000000000abc");
}

// ---- element decoding
// ----------------------------------------------------------
TEST(DType, Decoding) {
  EXPECT_EQ(decodeBF16(0x3f80), 1.0);
  EXPECT_EQ(decodeBF16(0xc040), -3.0);
  EXPECT_EQ(decodeF16(0x3c00), 1.0);
  EXPECT_EQ(decodeF16(0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(decodeF16(0x7c00)));
  EXPECT_EQ(decodeF8E4M3(0x38), 1.0);
  EXPECT_EQ(decodeF8E4M3(0x7e), 448.0);
  EXPECT_EQ(decodeF8E4M3(0x01), std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(decodeF8E4M3(0x7f)));
  EXPECT_TRUE(std::isnan(decodeF8E4M3(0xff)));
  EXPECT_EQ(decodeF8E5M2(0x3c), 1.0);
  EXPECT_EQ(decodeF8E5M2(0x7b), 57344.0);
  EXPECT_TRUE(std::isinf(decodeF8E5M2(0x7c)));
  EXPECT_EQ(parseDType("bf16"), DType::BF16);
  EXPECT_FALSE(parseDType("float").has_value());
}

// ---- tensor directories
// ----------------------------------------------------------
TEST(TensorDir, RoundTripAndAlias) {
  std::string dir = tempDir("td");
  TensorDir td;
  td.op = "fused_add_rms_norm";
  td.shape = Json::parse(R"({"T":1,"H":2})");
  td.seed = 9;
  RawTensor x{"x", "input", DType::F32, {1, 2}, {}, ""};
  float xv[2] = {1.5f, -2.0f};
  x.data.assign(reinterpret_cast<uint8_t *>(xv),
                reinterpret_cast<uint8_t *>(xv) + 8);
  RawTensor xo = x;
  xo.name = "x_out";
  xo.role = "output";
  xo.alias = "x";
  RawTensor eps{"eps", "input", DType::F64, {}, std::vector<uint8_t>(8, 0), ""};
  td.tensors = {x, eps, xo};
  writeTensorDir(dir, td);
  TensorDir back = readTensorDir(dir);
  EXPECT_EQ(back.op, "fused_add_rms_norm");
  EXPECT_EQ(back.seed, 9);
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_EQ(back.find("x_out")->alias, "x");
  EXPECT_EQ(back.find("eps")->shape.size(), 0u);
  EXPECT_EQ(back.find("x")->toDoubles(), (std::vector<double>{1.5, -2.0}));
}

TEST(TensorDir, ErrorsNameTheFile) {
  std::string dir = tempDir("td-bad");
  writeFile(
      dir + "/tensors.json",
      R"({"tensors":[{"name":"x","role":"input","dtype":"f32","shape":[4],"file":"x.bin"}]})");
  writeFile(dir + "/x.bin", std::string(8, '\0'));
  std::string err = errorOf([&] { readTensorDir(dir); });
  EXPECT_NE(err.find(dir + "/x.bin"), std::string::npos) << err;
  EXPECT_NE(err.find("needs 16"), std::string::npos) << err;

  writeFile(
      dir + "/tensors.json",
      R"({"tensors":[{"name":"x","role":"input","dtype":"f31","shape":[2]}]})");
  err = errorOf([&] { readTensorDir(dir); });
  EXPECT_NE(err.find(dir + "/tensors.json"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown dtype 'f31'"), std::string::npos) << err;

  writeFile(
      dir + "/tensors.json",
      R"({"tensors":[{"name":"x","role":"input","dtype":"f32","shape":[2],"file":"../x.bin"}]})");
  EXPECT_NE(errorOf([&] { readTensorDir(dir); }).find("plain name"),
            std::string::npos);

  writeFile(
      dir + "/tensors.json",
      R"({"tensors":[{"name":"y","role":"output","dtype":"f32","shape":[2],"file":"x.bin","alias":"q"}]})");
  EXPECT_NE(
      errorOf([&] { readTensorDir(dir); }).find("alias 'q' is not an input"),
      std::string::npos);
  EXPECT_NE(errorOf([&] { readTensorDir(dir + "/nope"); }).find("cannot open"),
            std::string::npos);
}

// ---- comparison
// --------------------------------------------------------------------
TEST(Compare, ElementwiseBound) {
  Tolerance t;
  t.atol = 0.1;
  t.rtol = 0.01;
  std::vector<double> ref = {1, 100, -5}, ok = {1.05, 100.9, -5.1},
                      bad = {1.2, 100, -5};
  EXPECT_TRUE(compareValues(ok, ref, t).ok);
  CompareResult r = compareValues(bad, ref, t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.numMismatches, 1);
  EXPECT_EQ(r.firstBad, 0);
  EXPECT_NE(r.reason.find("got 1.2, expected 1"), std::string::npos)
      << r.reason;
}

TEST(Compare, AtolScaledByReferenceRms) {
  Tolerance t;
  t.atolRms = 0.01;
  std::vector<double> ref = {300, -400, 0}; // rms = 288.7
  EXPECT_TRUE(compareValues({300, -400, 2.8}, ref, t).ok);
  EXPECT_FALSE(compareValues({300, -400, 3.0}, ref, t).ok);
}

TEST(Compare, NonFiniteAndUnwrittenOutputsFail) {
  Tolerance t;
  t.atol = 1e9;
  std::vector<double> ref = {1, 2, 3};
  CompareResult r = compareValues({1, NAN, 3}, ref, t);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.numNonFinite, 1);
  EXPECT_NE(r.reason.find("NaN/Inf"), std::string::npos);
  EXPECT_FALSE(compareValues({1, INFINITY, 3}, ref, t).ok);
  // A non-finite reference requires the same special value.
  EXPECT_TRUE(compareValues({INFINITY}, {INFINITY}, t).ok);
  EXPECT_FALSE(compareValues({1}, {INFINITY}, t).ok);
}

TEST(Compare, RelativeNorm) {
  Tolerance t;
  t.rtol = 1;
  t.maxRelNorm = 0.01;
  std::vector<double> ref(100, 1.0), out(100, 1.02);
  CompareResult r = compareValues(out, ref, t);
  EXPECT_FALSE(r.ok);
  EXPECT_NEAR(r.relNorm, 0.02, 1e-12);
  EXPECT_NE(r.reason.find("relative norm"), std::string::npos);
  std::fill(out.begin(), out.end(), 1.005);
  EXPECT_TRUE(compareValues(out, ref, t).ok);
}

TEST(Compare, ExactAndZeroCheck) {
  Tolerance ex;
  ex.exact = true;
  EXPECT_TRUE(compareValues({3, 1}, {3, 1}, ex).ok);
  EXPECT_FALSE(compareValues({3, 2}, {3, 1}, ex).ok);
  EXPECT_FALSE(compareValues({3}, {3, 1}, ex).ok);
  Tolerance loose;
  loose.atol = 1;
  std::vector<double> small = {0.5, -0.5}, large = {2, 3};
  EXPECT_TRUE(zerosWouldPass(small.data(), small.size(), loose));
  EXPECT_FALSE(zerosWouldPass(large.data(), large.size(), loose));
}

// ---- operator specs
// ---------------------------------------------------------------- The table
// generated from the MLIR definitions (the operator set itself is checked
// against the definitions and the implementations in OpsTest).
TEST(OpSpecs, GeneratedTable) {
  ASSERT_GE(allOpSpecs().size(), 12u);
  std::string previous;
  for (const OpSpec &s : allOpSpecs()) {
    EXPECT_LT(previous, s.name) << "sorted by name";
    previous = s.name;
    EXPECT_EQ(findOpSpec(s.name), &s);
    EXPECT_NO_THROW(validateShape(s, s.exampleShape)) << s.name;
    int outputs = 0;
    for (const ArgSpec &a : s.args) {
      outputs += a.kind == ArgKind::OutTensor || a.kind == ArgKind::InOutTensor;
      for (int64_t d : a.shape(s.exampleShape))
        EXPECT_GT(d, 0) << s.name << "." << a.name;
    }
    EXPECT_GT(outputs, 0) << s.name;
  }
  EXPECT_EQ(findOpSpec("rms_norm")->signature(),
            "void rms_norm(torch::Tensor& out, const torch::Tensor& x, const "
            "torch::Tensor& w, "
            "double eps)");
  EXPECT_EQ(findOpSpec("rotary_embedding")->signature(),
            "void rotary_embedding(const torch::Tensor& positions, "
            "torch::Tensor& query, "
            "torch::Tensor& key, int64_t head_size, const torch::Tensor& "
            "cos_sin_cache, bool is_neox)");
  // Derived definition symbols: the caches hold NB = B * ceil(L/BS) + 1 pages.
  const OpSpec &paged = *findOpSpec("paged_attention_decode");
  ShapeMap shape = parseShape(paged, "B=3,Hq=4,Hk=2,D=64,BS=16,L=80");
  EXPECT_EQ(paged.findArg("key_cache")->shape(shape),
            (std::vector<int64_t>{16, 16, 2, 64}));
  EXPECT_EQ(paged.findArg("block_tables")->shape(shape),
            (std::vector<int64_t>{3, 5}));
}

TEST(OpSpecs, ShapeParsingErrors) {
  const OpSpec &s = *findOpSpec("per_token_group_quant_fp8");
  EXPECT_EQ(parseShape(s, "T=2,H=256"), (ShapeMap{{"T", 2}, {"H", 256}}));
  EXPECT_NE(
      errorOf([&] { parseShape(s, "T=2"); }).find("shape key 'H' missing"),
      std::string::npos);
  EXPECT_NE(errorOf([&] {
              parseShape(s, "T=2,H=256,Z=1");
            }).find("unknown shape key 'Z'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { parseShape(s, "T=x,H=256"); }).find("not an integer"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              parseShape(s, "T=2,H=100");
            }).find("H must be a multiple of 128"),
            std::string::npos);
  EXPECT_NE(
      errorOf([&] { parseShape(s, "T=0,H=128"); }).find("must be positive"),
      std::string::npos);
  EXPECT_NE(errorOf([&] {
              parseShape(*findOpSpec("topk_softmax"), "T=1,E=4,K=8,R=1");
            }).find("K must not exceed E"),
            std::string::npos);
}

// Without the operator implementations (lib/ops) there are no tolerances:
// the comparison refuses instead of using a wrong one (OpsTest checks the
// comparison itself).
TEST(OpSpecs, CheckTensorDirsNeedsTolerances) {
  const OpSpec &s = *findOpSpec("silu_and_mul");
  for (const ArgSpec &a : s.args)
    EXPECT_FALSE(a.hasTolerance) << a.name;
  RawTensor t{"out", "output", DType::BF16, {1}, {0x80, 0x3f}, ""};
  TensorDir ref, cand;
  ref.tensors = {t};
  cand.tensors = {t};
  Json r = checkTensorDirs(s, ref, cand);
  EXPECT_FALSE(r.get("ok")->asBool());
  EXPECT_NE(
      r.getString("error", "").find("has no registered tolerance for 'out'"),
      std::string::npos)
      << r.dump();
}

// ---- plans and results
// -----------------------------------------------------------------
namespace {
const char *kPlan = R"({
  "schema": "atrex-gate-plan/1",
  "settings": {"trials": 3, "seed": 5},
  "submissions": [
    {"source": "a.cu", "operator": "rms_norm",
     "problems": [{"shape": {"T": 1, "H": 128}}, {"shape": {"T": 2, "H": 128}, "floor_s": 1e-6}]},
    {"name": "b", "source": "/abs/b.cu", "operator": "gemm_bf16", "expected_verdict": "fallback",
     "problems": [{"id": "g1", "shape": {"M": 1, "N": 2, "K": 3}}, {"shape": {"M": 4, "N": 5, "K": 6}},
                  {"shape": {"M": 7, "N": 8, "K": 9}}]}
  ]})";
}

TEST(Plan, ParsesAndResolvesPaths) {
  Plan p = parsePlan(Json::parse(kPlan), "/plans/p.json");
  ASSERT_EQ(p.submissions.size(), 2u);
  EXPECT_EQ(p.submissions[0].source, "/plans/a.cu");
  EXPECT_EQ(p.submissions[0].name, "a");
  EXPECT_EQ(p.submissions[1].source, "/abs/b.cu");
  EXPECT_EQ(p.submissions[1].problems[0].id, "g1");
  EXPECT_EQ(p.submissions[0].problems[0].id, "rms_norm/H=128,T=1");
  EXPECT_EQ(p.submissions[0].problems[1].floorSeconds, 1e-6);
  EXPECT_EQ(p.settings.seedSource, "fixed");
  EXPECT_EQ(p.settings.seed, 5u);
  EXPECT_EQ(p.settings.trials, 3);
  EXPECT_EQ(p.settings.gapSleepCycles, 100000);
}

// A relative -I in nvcc_flags resolves against the plan's directory, as the
// source does; other flags and absolute directories are kept.
TEST(Plan, ResolvesRelativeIncludeFlags) {
  Plan p = parsePlan(Json::parse(R"({
    "schema": "atrex-gate-plan/1",
    "submissions": [{"source": "sets/a.cu", "operator": "rms_norm",
      "nvcc_flags": ["-I../.prodlibs/inc", "-I/abs/inc", "-lineinfo", "-I"],
      "problems": [{"shape": {"T": 1, "H": 128}}]}]})"),
                     "/plans/p.json");
  ASSERT_EQ(p.submissions.size(), 1u);
  EXPECT_EQ(p.submissions[0].extraFlags,
            (std::vector<std::string>{"-I/.prodlibs/inc", "-I/abs/inc",
                                      "-lineinfo", "-I"}));
}

// A plan named by a relative path gives absolute include directories: nvcc
// runs in the gate's cache directory, not where the gate was started.
TEST(Plan, IncludeFlagsOfARelativePlanAreAbsolute) {
  Plan p = parsePlan(Json::parse(R"({
    "schema": "atrex-gate-plan/1",
    "submissions": [{"source": "a.cu", "operator": "rms_norm",
      "nvcc_flags": ["-I../../.prodlibs/inc", "-isystem", "../../.prodlibs/sys",
                     "-isystem../x", "-I/abs", "-DN=1"],
      "problems": [{"shape": {"T": 1, "H": 128}}]}]})"),
                     "bench/sets/p.json");
  auto abs = [](const char *rel) {
    return (std::filesystem::current_path() / rel).lexically_normal().string();
  };
  EXPECT_EQ(p.submissions[0].extraFlags,
            (std::vector<std::string>{
                "-I" + abs(".prodlibs/inc"), "-isystem", abs(".prodlibs/sys"),
                "-isystem" + abs("bench/x"), "-I/abs", "-DN=1"}));
}

TEST(Plan, ShardsPartitionUnits) {
  Plan p = parsePlan(Json::parse(kPlan), "p.json");
  EXPECT_EQ(allUnits(p).size(), 5u);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 3; ++i)
    for (const Unit &u : shardUnits(p, i, 3))
      ++seen[u.index];
  EXPECT_EQ(seen, std::vector<int>(5, 1));
  EXPECT_EQ(shardUnits(p, 1, 3).size(), 2u);
  EXPECT_EQ(parseShard("2/4"), std::make_pair(2, 4));
  for (const char *bad : {"4/4", "1", "a/b", "-1/2", "1/0", "1/2x"})
    EXPECT_NE(errorOf([&] { parseShard(bad); }).find("expected i/n"),
              std::string::npos)
        << bad;
}

// Regression: sm_90a became "90.a" (the string was cut at fixed offsets).
TEST(Protocol, TorchArchListOfACompileTarget) {
  using protocol::torchArchList;
  EXPECT_EQ(torchArchList("sm_90"), "9.0");
  EXPECT_EQ(torchArchList("sm_90a"), "9.0a");
  EXPECT_EQ(torchArchList("sm_100f"), "10.0f");
  EXPECT_EQ(torchArchList("sm_120"), "12.0");
  EXPECT_EQ(torchArchList("gfx942"), "");
}

TEST(Plan, ErrorsNameFileAndEntry) {
  auto err = [](const std::string &text) {
    return errorOf([&] { parsePlan(Json::parse(text), "p.json"); });
  };
  EXPECT_EQ(
      err(R"({"submissions":[{"source":"a.cu","operator":"nope","problems":[{"shape":{}}]}]})"),
      "p.json: submissions[0]: unknown operator 'nope' (known: " +
          knownOpNames() + ")");
  EXPECT_NE(
      err(R"({"submissions":[{"source":"a.cu","operator":"rms_norm","problems":[{"shape":{"T":1}}]}]})")
          .find("submissions[0].problems[0]: operator 'rms_norm': shape key "
                "'H' missing"),
      std::string::npos);
  EXPECT_NE(
      err(R"({"settings":{"trials":2},"submissions":[]})").find("at least 3"),
      std::string::npos);
  // A compile target nvcc cannot take is the plan's error, not a compile
  // failure of every submission.
  EXPECT_NE(err(R"({"settings":{"arch":"gfx942"},"submissions":[]})")
                .find("p.json: settings.arch: expected a CUDA compile target "
                      "sm_XY, sm_XYa or sm_XYf, got 'gfx942'"),
            std::string::npos);
  EXPECT_NE(err(R"({"settings":{"arch":"sm_9"},"submissions":[]})")
                .find("settings.arch"),
            std::string::npos);
  EXPECT_NE(
      err(R"({"settings":{"gap_sleep_cycles":-1},"submissions":[]})")
          .find(
              "settings.gap_sleep_cycles: expected 0..100000000 clock cycles"),
      std::string::npos);
  EXPECT_NE(err(R"({"settings":{"own_share_calls":-2},"submissions":[]})")
                .find("settings.own_share_calls: expected 0..1000 calls"),
            std::string::npos);
  EXPECT_NE(err(R"({"settings":{"gpu_mb":-1},"submissions":[]})")
                .find("settings.gpu_mb: expected 0 (no cap) or a size in MiB"),
            std::string::npos);
  EXPECT_NE(
      err(R"({"settings":{"memcheck_s":0},"submissions":[]})")
          .find("settings.memcheck_s: expected a positive number of seconds"),
      std::string::npos);
  EXPECT_NE(err(R"({"setings":{}})").find("unknown key 'setings'"),
            std::string::npos);
  EXPECT_NE(err(R"({"submissions":[]})").find("non-empty"), std::string::npos);
  EXPECT_NE(err(R"({"schema":"x","submissions":[]})")
                .find("expected 'atrex-gate-plan/1'"),
            std::string::npos);
}

TEST(Results, Validation) {
  Json r = Json::parse(
      R"({"schema":"atrex-gate-result/1","unit":0,"submission":{},"problem":{},
    "status":"pass","stage":"done","verdict":"adopted","performance":{"median_us":1.5}})");
  EXPECT_EQ(validateResult(r), "");
  r.set("verdict", "great");
  EXPECT_EQ(validateResult(r), "unknown verdict 'great'");
  r.set("verdict", "fallback");
  r.set("status", "fail");
  EXPECT_EQ(validateResult(r), "a failed result needs a 'reason'");
  r.set("reason", "x");
  EXPECT_EQ(validateResult(r), "");
  r.set("status", "pass");
  r.set("performance", Json::object());
  EXPECT_EQ(validateResult(r), "a passing result needs performance.median_us");
}

// ---- binding generation
// -------------------------------------------------------------------
TEST(Compile, BindingFollowsTheSignature) {
  std::string b = generateBinding(*findOpSpec("topk_softmax"), "/x/sub.cu");
  EXPECT_NE(b.find("void topk_softmax(torch::Tensor& topk_weights, "
                   "torch::Tensor& topk_ids, "
                   "const torch::Tensor& gating_output, bool renormalize);"),
            std::string::npos)
      << b;
  EXPECT_NE(b.find("#include \"/x/sub.cu\""), std::string::npos);
  EXPECT_NE(b.find("topk_softmax(*static_cast<torch::Tensor *>(args[0]), "
                   "*static_cast<torch::Tensor "
                   "*>(args[1]), *static_cast<torch::Tensor *>(args[2]), "
                   "*static_cast<bool *>(args[3]))"),
            std::string::npos)
      << b;
  EXPECT_NE(b.find("extern \"C\" __attribute__((visibility(\"default\"))) int "
                   "atrex_entry_v1"),
            std::string::npos);
}

TEST(Compile, NvccCommandHasNoPtx) {
  Submission sub;
  sub.extraFlags = {"-lineinfo"};
  PlanSettings s;
  s.arch = "sm_90a";
  auto cmd = nvccCommand(sub, s, "b.cu", "o.so");
  auto has = [&](const std::string &f) {
    return std::find(cmd.begin(), cmd.end(), f) != cmd.end();
  };
  EXPECT_TRUE(has("arch=compute_90a,code=sm_90a"));
  EXPECT_TRUE(has("-lineinfo"));
  EXPECT_TRUE(has("-shared"));
  EXPECT_EQ(cmd.back(), "b.cu");
}

TEST(Compile, MissingSourceIsReported) {
  Submission sub;
  sub.source = "/nonexistent/sub.cu";
  CompileResult r = compileSubmission(sub, *findOpSpec("rms_norm"),
                                      PlanSettings(), tempDir("cc"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("/nonexistent/sub.cu"), std::string::npos)
      << r.reason;
}

TEST(Attribution, VerdictPrecedenceMatchesLint) {
  using atrex::rt::attr::Summary;
  using atrex::rt::attr::verdictOf;
  Summary own;
  own.ownLaunches = 3;
  EXPECT_EQ(verdictOf(own), "adopted");
  Summary mixed = own;
  mixed.foreignLaunches = 1;
  EXPECT_EQ(verdictOf(mixed), "fallback");
  Summary foreignOnly; // a kernel defined but never launched, ATen computes
  foreignOnly.foreignLaunches = 7;
  EXPECT_EQ(verdictOf(foreignOnly), "fallback");
  Summary nothing; // host compute and copies only
  nothing.gateLaunches = 12;
  EXPECT_EQ(verdictOf(nothing), "no-kernel");
}

TEST(Compare, ConstantWouldPass) {
  Tolerance tol;
  tol.atol = 1e-2;
  tol.rtol = 1e-2;
  std::vector<double> flat(100, 5.0);
  double c = -1;
  EXPECT_TRUE(constantWouldPass(flat.data(), flat.size(), tol, &c));
  EXPECT_EQ(c, 5.0);
  std::vector<double> varied(100);
  for (size_t i = 0; i < varied.size(); ++i)
    varied[i] = std::sin(static_cast<double>(i)) * 3.0 + 5.0;
  EXPECT_FALSE(constantWouldPass(varied.data(), varied.size(), tol));
  // A one-element output (moe_align_block_size's num_tokens_post_pad) is
  // its own mean: only the zero constant counts.
  std::vector<double> one = {56.0}, zero = {0.0};
  EXPECT_FALSE(constantWouldPass(one.data(), one.size(), tol));
  EXPECT_TRUE(constantWouldPass(zero.data(), zero.size(), tol, &c));
  EXPECT_EQ(c, 0.0);
}

TEST(Compare, MismatchFractionKeepsTheNormAndNonFiniteChecks) {
  Tolerance tol;
  tol.rtol = 1e-2;
  tol.maxRelNorm = 3e-2;
  tol.maxMismatchFrac = 5e-3;
  std::vector<double> ref(1000), out(1000);
  for (size_t i = 0; i < ref.size(); ++i)
    out[i] = ref[i] = 1.0 + std::sin(static_cast<double>(i));
  for (int i = 0; i < 5; ++i) // 0.5% of the elements off by 6%
    out[i * 100] *= 1.06;
  CompareResult r = compareValues(out, ref, tol);
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.numMismatches, 5);
  out[999] *= 1.06; // one more: 0.6%
  EXPECT_FALSE(compareValues(out, ref, tol).ok);
  out[999] = ref[999];
  out[1] = std::nan(""); // never allowed
  EXPECT_FALSE(compareValues(out, ref, tol).ok);
  out[1] = ref[1];
  for (size_t i = 0; i < out.size(); ++i) // the norm still binds
    out[i] = ref[i] * (i % 2 ? 1.04 : 0.96);
  Tolerance any = tol;
  any.maxMismatchFrac = 1;
  CompareResult n = compareValues(out, ref, any);
  EXPECT_FALSE(n.ok);
  EXPECT_NE(n.reason.find("relative norm"), std::string::npos) << n.reason;
  // Round trip through JSON.
  EXPECT_EQ(Tolerance::fromJson(tol.toJson()).maxMismatchFrac, 5e-3);
}

namespace {
WorkerRun exited(int code, const std::string &report) {
  WorkerRun w;
  w.child.end = ChildResult::End::Exited;
  w.child.exitCode = code;
  w.haveReport = lastReportLine(report, w.report);
  return w;
}
Json passed(double medianUs, int sideStreamReps = 0) {
  return Json::parse(
      R"({"status":"pass","performance":{"median_us":)" +
      std::to_string(medianUs) +
      R"(,"p10_us":1,"p90_us":2,"reps":9,"mode":"eager","side_stream_reps":)" +
      std::to_string(sideStreamReps) +
      R"(},"attribution":{"available":true}})");
}
} // namespace

TEST(GateRun, LastReportLineAndOutcomes) {
  Json rep;
  EXPECT_FALSE(lastReportLine("", rep));
  EXPECT_FALSE(
      lastReportLine("{\"status\":\"pass\"}", rep)); // no newline: incomplete
  EXPECT_TRUE(
      lastReportLine("{\"stage\":\"correctness\"}\n{\"stage\":\"perf\n", rep));
  EXPECT_EQ(rep.getString("stage", ""), "correctness");
  // With the run's key only keyed lines count; the others are counted as
  // forged.
  int forged = 0;
  rep = Json();
  EXPECT_TRUE(
      lastReportLine("k1 {\"stage\":\"correctness\"}\n{\"status\":\"pass\"}\n"
                     "k2 {\"status\":\"pass\"}\n\n",
                     rep, "k1", &forged));
  EXPECT_EQ(rep.getString("stage", ""), "correctness");
  EXPECT_FALSE(rep.has("status"));
  EXPECT_EQ(forged, 2);
  EXPECT_EQ(reportKey().size(), 32u);
  // SipHash-2-4 reference vector (Aumasson and Bernstein, 2012): key 00..0f,
  // message 00..0e.
  unsigned char key[16], msg[15];
  for (int i = 0; i < 16; ++i)
    key[i] = static_cast<unsigned char>(i);
  for (int i = 0; i < 15; ++i)
    msg[i] = static_cast<unsigned char>(i);
  uint64_t k0 = 0, k1 = 0;
  for (int b = 7; b >= 0; --b) {
    k0 = (k0 << 8) | key[b];
    k1 = (k1 << 8) | key[8 + b];
  }
  EXPECT_EQ(sipHash24(k0, k1, msg, sizeof(msg)), 0xa129ca6149be45e5ULL);
  // Unit seeds: deterministic per run seed, 63 bits, and not an affine function
  // of the index.
  EXPECT_EQ(unitSeedOf(42, 7), unitSeedOf(42, 7));
  EXPECT_NE(unitSeedOf(42, 7), unitSeedOf(43, 7));
  EXPECT_EQ(unitSeedOf(42, 7) >> 63, 0u);
  EXPECT_NE(unitSeedOf(42, 2) - unitSeedOf(42, 1),
            unitSeedOf(42, 1) - unitSeedOf(42, 0));
  EXPECT_NE(reportKey(), reportKey());
  WorkerRun forgedRun = exited(0, "{\"status\":\"pass\",\"stage\":\"done\"}\n");
  forgedRun.haveReport = true;
  forgedRun.report = Json::parse("{\"status\":\"pass\",\"stage\":\"done\"}");
  forgedRun.forgedLines = 1;
  EXPECT_EQ(outcomeOf(forgedRun).status, "fail");

  Outcome o =
      outcomeOf(exited(0, "{\"status\":\"pass\",\"stage\":\"done\"}\n"));
  EXPECT_EQ(o.status, "pass");
  EXPECT_EQ(o.stage, "done");
  o = outcomeOf(exited(0, "{\"status\":\"fail\",\"stage\":\"correctness\","
                          "\"reason\":\"wrong\"}\n"));
  EXPECT_EQ(o.reason, "wrong");
  // No report at all: setup, the child's own reason.
  WorkerRun crashed;
  crashed.child.end = ChildResult::End::Signaled;
  crashed.child.signal = 11;
  o = outcomeOf(crashed);
  EXPECT_EQ(o.status, "fail");
  EXPECT_EQ(o.stage, "setup");
  EXPECT_NE(o.reason.find("setup: "), std::string::npos);
  // The watchdog: the candidate's hang is a fail, the gate's own work an error.
  WorkerRun hung = exited(0, "{\"stage\":\"performance\"}\n");
  hung.child.end = ChildResult::End::TimedOut;
  hung.child.wallSeconds = 40;
  EXPECT_EQ(outcomeOf(hung).status, "fail");
  hung.gateTimedOut = true;
  o = outcomeOf(hung);
  EXPECT_EQ(o.status, "error");
  EXPECT_NE(o.reason.find("performance: "), std::string::npos);
  EXPECT_NE(o.reason.find("not the submission's: raise settings.problem_s"),
            std::string::npos);
  WorkerRun spawn;
  spawn.child.end = ChildResult::End::SpawnFailed;
  EXPECT_EQ(outcomeOf(spawn).status, "error");
}

// A worker batch's report cut into units, and who gets the worker's end.
TEST(GateRun, BatchReportAndDecisions) {
  BatchReport rep({4, 5, 6}, "k");
  // Lines arrive in pieces; keyed lines belong to the current unit.
  EXPECT_TRUE(
      rep.feed("k {\"unit\":4,\"stage\":\"correctness\"}\nk {\"unit\":4,\"sta")
          .empty());
  EXPECT_EQ(rep.current(), 0u);
  std::string bytes =
      "k {\"unit\":4,\"stage\":\"correctness\"}\nk "
      "{\"unit\":4,\"status\":\"pass\",\"stage\":"
      "\"done\"}\n{\"status\":\"pass\"}\nk {\"unit\":4,\"stage\":\"x\"}\nk "
      "{\"stage\":\"correctness\"}\n";
  EXPECT_EQ(rep.feed(bytes), std::vector<size_t>{0});
  EXPECT_EQ(rep.finished(), 1u);
  EXPECT_EQ(rep.last(0)->getString("stage", ""), "done");
  EXPECT_EQ(rep.forged(0), 0);
  // An unkeyed line and a line naming another unit count as forged for the
  // current unit (5).
  EXPECT_EQ(rep.forged(1), 2);
  EXPECT_TRUE(rep.failed(1));
  EXPECT_EQ(rep.last(1)->getString("stage", ""), "correctness");
  EXPECT_EQ(rep.last(2), nullptr);

  // Unit 5 crashes: unit 4 continued, unit 5 gets the crash, unit 6 runs again.
  ChildResult crashed;
  crashed.end = ChildResult::End::Signaled;
  crashed.signal = 11;
  crashed.wallSeconds = 3;
  std::vector<WorkerRun> d =
      decideBatch(rep, crashed, {UnitMark{1.0, 100, 0}}, false);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].child.end, ChildResult::End::Continued);
  EXPECT_DOUBLE_EQ(d[0].child.wallSeconds, 1.0);
  EXPECT_EQ(outcomeOf(d[0]).status, "pass");
  EXPECT_EQ(d[1].child.end, ChildResult::End::Signaled);
  EXPECT_DOUBLE_EQ(d[1].child.wallSeconds, 2.0);
  EXPECT_EQ(d[1].forgedLines, 2);
  EXPECT_EQ(outcomeOf(d[1]).status, "fail");
  // Stopped by the gate after unit 4 (say it left processes behind): only unit
  // 4 is decided.
  ChildResult stopped = crashed;
  stopped.stoppedByHook = true;
  d = decideBatch(rep, stopped, {UnitMark{1.0, 100, 2}}, false);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].child.orphansKilled, 2);
  EXPECT_EQ(outcomeOf(d[0]).status, "fail");

  // Every unit finished: the last one gets the worker's end (and what it left
  // behind at exit).
  BatchReport all({1, 2}, "");
  all.feed("{\"status\":\"pass\",\"stage\":\"done\"}\n{\"status\":\"pass\","
           "\"stage\":\"done\"}\n");
  ChildResult exited;
  exited.end = ChildResult::End::Exited;
  exited.exitCode = 0;
  exited.wallSeconds = 5;
  exited.orphansKilled = 1;
  d = decideBatch(all, exited, {UnitMark{2, 0, 0}, UnitMark{4, 0, 0}}, false);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].child.orphansKilled, 0);
  EXPECT_EQ(d[1].child.end, ChildResult::End::Exited);
  EXPECT_DOUBLE_EQ(d[1].child.wallSeconds, 3.0);
  EXPECT_EQ(d[1].child.orphansKilled, 1);
  // A unit that left processes behind stops the batch; a unit the worker
  // finished before the stop reached it is not decided (it runs again in a
  // fresh worker), and the worker's end belongs to neither (2026-12-02c).
  d = decideBatch(all, exited, {UnitMark{2, 0, 1}, UnitMark{4, 0, 0}}, false);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].child.orphansKilled, 1);
  EXPECT_EQ(d[0].child.end, ChildResult::End::Continued);
  // A unit that failed ends the worker: its exit is that unit's, the rest run
  // again.
  BatchReport failedRep({1, 2, 3}, "");
  failedRep.feed("{\"status\":\"pass\",\"stage\":\"done\"}\n{\"status\":"
                 "\"fail\",\"stage\":\"correctness\","
                 "\"reason\":\"wrong\"}\n");
  exited.orphansKilled = 0;
  d = decideBatch(failedRep, exited, {UnitMark{2, 0, 0}, UnitMark{4, 0, 0}},
                  false);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].child.end, ChildResult::End::Exited);
  EXPECT_EQ(outcomeOf(d[1]).reason, "wrong");
  // The watchdog in the gate's own phase: the hung unit's error, nobody else's.
  ChildResult hung;
  hung.end = ChildResult::End::TimedOut;
  hung.wallSeconds = 9;
  BatchReport one({1, 2}, "");
  one.feed("{\"status\":\"pass\",\"stage\":\"done\"}\n{\"stage\":"
           "\"performance\"}\n");
  d = decideBatch(one, hung, {UnitMark{2, 0, 0}}, true);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_FALSE(d[0].gateTimedOut);
  EXPECT_TRUE(d[1].gateTimedOut);
  EXPECT_EQ(outcomeOf(d[1]).status, "error");
  EXPECT_NE(outcomeOf(d[1]).reason.find("hang: still running after 7 s"),
            std::string::npos)
      << outcomeOf(d[1]).reason;
}

TEST(GateRun, CleanTimingDecisions) {
  PlanSettings s;
  int calls = 0;
  bool graphsAsked = false;
  auto clean = [&](const std::string &report) {
    return [&calls, &graphsAsked, report](int ownShareCalls, bool graphs) {
      ++calls;
      graphsAsked = graphs;
      EXPECT_EQ(ownShareCalls, 0); // not a mixed unit
      return exited(0, report + "\n");
    };
  };
  // Within the tolerance: the clean figures replace the attributed ones.
  Json r = passed(100);
  Outcome o = applyCleanTiming(r, s, clean(passed(96).dump()));
  EXPECT_EQ(o.status, "");
  const Json *p = r.get("performance");
  EXPECT_EQ(p->getDouble("median_us", 0), 96);
  EXPECT_EQ(p->get("attributed")->getDouble("median_us", 0), 100);
  EXPECT_TRUE(p->get("clean_run")->getBool("used", false));
  EXPECT_EQ(p->get("clean_run")->getInt("reps", 0), 9);
  // Outside it (either way): the attributed time stands.
  for (double m : {85.0, 115.0}) {
    r = passed(100);
    applyCleanTiming(r, s, clean(passed(m).dump()));
    EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100) << m;
    EXPECT_FALSE(r.get("performance")->get("clean_run")->getBool("used", true))
        << m;
  }
  r = passed(100);
  applyCleanTiming(r, s, clean(passed(85).dump()));
  EXPECT_EQ(r.get("performance")->get("clean_run")->getString("why", ""),
            "the clean median is 0.85x the attributed one, outside 1 +- 0.1");
  s.cleanTimingTolerance = 0.2;
  r = passed(100);
  applyCleanTiming(r, s, clean(passed(85).dump()));
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 85);
  // A failing clean run fails the unit; a gate error leaves the result
  // standing.
  r = passed(100);
  o = applyCleanTiming(
      r, s, clean(R"({"status":"fail","stage":"correctness","reason":"nan"})"));
  EXPECT_EQ(o.status, "fail");
  EXPECT_EQ(o.reason, "nan");
  r = passed(100);
  o = applyCleanTiming(
      r, s, clean(R"({"status":"error","stage":"setup","reason":"no GPU"})"));
  EXPECT_EQ(o.status, "");
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100);
  EXPECT_EQ(r.get("performance")->get("clean_run")->getString("why", ""),
            "the clean run did not pass: error at setup: no GPU");
  EXPECT_TRUE(graphsAsked);
  // Side streams: the clean run captures no graphs and counts only with a
  // device-wide span on every rep; then a slower clean median is taken too
  // (issue 15: a side stream destroyed after use hid its work from the events).
  s.cleanTimingTolerance = 0.1;
  auto deviceWide = [](double medianUs, bool wide = true) {
    Json c = passed(medianUs);
    c.get("performance")->set("device_wide", wide);
    c.get("performance")->set("device_wide_reps", wide ? 9 : 0);
    if (!wide)
      c.get("performance")->set("device_wide_error", "cannot load CUPTI: nope");
    return c.dump();
  };
  r = passed(100, 3);
  applyCleanTiming(r, s, clean(deviceWide(250)));
  EXPECT_FALSE(graphsAsked);
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 250) << r.dump();
  EXPECT_TRUE(
      r.get("performance")->get("clean_run")->getBool("device_wide", false));
  r = passed(100, 3);
  applyCleanTiming(r, s, clean(deviceWide(50)));
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100);
  EXPECT_EQ(r.get("performance")->get("clean_run")->getString("why", ""),
            "the clean (device-wide) median is 0.5x the attributed one, below "
            "1 - 0.1");
  r = passed(100, 3);
  o = applyCleanTiming(r, s, clean(deviceWide(250, false)));
  EXPECT_EQ(o.status, "");
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100);
  EXPECT_EQ(r.get("performance")->get("clean_run")->getString("why", ""),
            "the call uses side streams and the clean run measured no "
            "device-wide span (cannot load "
            "CUPTI: nope)");
  // A stream destroyed before the gate could record on it, and no span: the
  // gate cannot time the unit (its error, not the submission's fault).
  r = passed(3);
  r.get("performance")->set("destroyed_stream_reps", 10);
  o = applyCleanTiming(r, s, clean(deviceWide(250, false)));
  EXPECT_EQ(o.status, "error");
  EXPECT_EQ(
      o.reason,
      "the submission destroyed a stream its timed call launched on, so only a "
      "device-wide span times it, and the clean run measured no device-wide "
      "span (cannot "
      "load CUPTI: nope)");
  r = passed(3);
  r.get("performance")->set("destroyed_stream_reps", 10);
  o = applyCleanTiming(r, s, clean(deviceWide(250)));
  EXPECT_EQ(o.status, "");
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 250);
  // Never without attribution (nothing to compare with).
  calls = 0;
  Json r2 = passed(100);
  r2.get("attribution")->set("available", false);
  applyCleanTiming(r2, s, clean(passed(50).dump()));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(r2.get("performance")->get("clean_run"), nullptr);
}

// The own-time share of a unit whose timed calls launched own and foreign
// kernels: the clean run times them (CUPTI), joined by name to the attributed
// run's kernels, whose side the module hash decided.
namespace {
Json mixedResult() {
  Json r = passed(100);
  r.set("attribution", Json::parse(R"({"available":true,"timed_own_launches":10,
    "timed_foreign_launches":20,"own_time_share":null,"kernels":[
    {"name":"_Z4copyPf","own":true,"region":"timed","launches":10},
    {"name":"_Z4copyPf","own":true,"region":"correctness","launches":4},
    {"name":"nvjet_gemm","own":false,"region":"timed","launches":10},
    {"name":"splitK","own":false,"region":"timed","launches":10}]})"));
  return r;
}
} // namespace

TEST(GateRun, OwnTimeShareFromKernelTimes) {
  PlanSettings s;
  std::vector<int> asked;
  auto clean = [&](const std::string &kernelTimes) {
    return [&asked, kernelTimes](int ownShareCalls, bool) {
      asked.push_back(ownShareCalls);
      Json rep = passed(97);
      rep.set("kernel_times", Json::parse(kernelTimes));
      return exited(0, rep.dump() + "\n");
    };
  };
  Json r = mixedResult();
  EXPECT_TRUE(mixedOwnForeign(*r.get("attribution")));
  applyCleanTiming(
      r, s, clean(R"({"calls":10,"kernels":[{"name":"nvjet_gemm","launches":10,
    "total_us":60},{"name":"_Z4copyPf","launches":10,"total_us":30},{"name":"splitK","launches":10,
    "total_us":10}]})"));
  EXPECT_EQ(asked, std::vector<int>{10});
  const Json *a = r.get("attribution");
  EXPECT_DOUBLE_EQ(a->getDouble("own_time_share", -1), 0.3) << a->dump();
  EXPECT_EQ(a->get("own_time_share_why"), nullptr);
  ASSERT_NE(a->get("kernel_times"), nullptr);
  EXPECT_EQ(a->get("kernel_times")->asArray().size(), 3u);
  EXPECT_FALSE(a->get("kernel_times")->asArray()[0].getBool("own", true));
  EXPECT_NE(a->getString("own_time_share_source", "").find("10 untimed calls"),
            std::string::npos);
  // The clean run's median is still used for the time.
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 97);

  // A kernel the attributed run never launched: no share, the range it spans.
  r = mixedResult();
  applyCleanTiming(
      r, s, clean(R"({"calls":10,"kernels":[{"name":"_Z4copyPf","launches":10,
    "total_us":30},{"name":"nvjet_gemm","launches":10,"total_us":50},{"name":"_Z5sneakyv",
    "launches":10,"total_us":20}]})"));
  a = r.get("attribution");
  EXPECT_TRUE(a->get("own_time_share")->isNull());
  EXPECT_NE(a->getString("own_time_share_why", "").find("_Z5sneakyv"),
            std::string::npos);
  ASSERT_NE(a->get("own_time_share_range"), nullptr);
  EXPECT_DOUBLE_EQ(a->get("own_time_share_range")->asArray()[0].asDouble(),
                   0.3);
  EXPECT_DOUBLE_EQ(a->get("own_time_share_range")->asArray()[1].asDouble(),
                   0.5);

  // A name that is own in one module and foreign in another is not guessed.
  r = mixedResult();
  Json k = Json::parse(
      R"({"name":"_Z4copyPf","own":false,"region":"correctness","launches":1})");
  r.get("attribution")->get("kernels")->push(k);
  applyCleanTiming(
      r, s, clean(R"({"calls":10,"kernels":[{"name":"_Z4copyPf","launches":10,
    "total_us":30},{"name":"nvjet_gemm","launches":10,"total_us":70}]})"));
  a = r.get("attribution");
  EXPECT_TRUE(a->get("own_time_share")->isNull());
  EXPECT_EQ(a->get("kernel_times")->asArray()[0].getString("why", ""),
            "name of an own and a foreign kernel");

  // CUPTI missing or failing: null, with the reason; the unit still passes.
  r = mixedResult();
  Outcome o = applyCleanTiming(
      r, s, clean(R"({"calls":0,"error":"cannot load CUPTI: nope"})"));
  EXPECT_EQ(o.status, "");
  a = r.get("attribution");
  EXPECT_TRUE(a->get("own_time_share")->isNull());
  EXPECT_EQ(a->getString("own_time_share_why", ""),
            "kernel durations unavailable: cannot load CUPTI: nope");

  // Not asked for when the setting is 0, nor for units with one side only.
  s.ownShareCalls = 0;
  asked.clear();
  r = mixedResult();
  applyCleanTiming(r, s, clean(R"({"calls":0,"kernels":[]})"));
  EXPECT_EQ(asked, std::vector<int>{0});
  EXPECT_EQ(r.get("attribution")->getString("own_time_share_why", ""),
            "own_share_calls is 0: kernel durations not measured");
  s.ownShareCalls = 10;
  asked.clear();
  r = passed(100);
  applyCleanTiming(r, s, clean(R"({"calls":0,"kernels":[]})"));
  EXPECT_EQ(asked, std::vector<int>{0});
  // Side streams: the clean run (CUPTI sees every stream) measures them too.
  r = mixedResult();
  r.get("performance")->set("side_stream_reps", 3);
  asked.clear();
  applyCleanTiming(
      r, s, clean(R"({"calls":10,"kernels":[{"name":"nvjet_gemm","launches":10,
    "total_us":60},{"name":"_Z4copyPf","launches":10,"total_us":30},{"name":"splitK","launches":10,
    "total_us":10}]})"));
  EXPECT_EQ(asked, std::vector<int>{10});
  EXPECT_DOUBLE_EQ(r.get("attribution")->getDouble("own_time_share", -1), 0.3);
}

// compute-sanitizer memcheck logs (format of CUDA 13's compute-sanitizer).
TEST(GateRun, MemcheckLogAndDecision) {
  const std::string bad =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 2 bytes\n"
      "=========     at silu_and_mul_kernel(__nv_bfloat16 *, const "
      "__nv_bfloat16 *, long, int)+0x1c0\n"
      "=========     by thread (255,0,0) in block (3583,0,0)\n"
      "=========     Address 0x7f0e5a000000 is out of bounds\n"
      "=========     Saved host backtrace up to driver entry point at kernel "
      "launch time\n"
      "=========         Host Frame: [0x2774ec] in libcuda.so.1\n"
      "=========\n"
      "========= Invalid __global__ read of size 2 bytes\n"
      "=========     at silu_and_mul_kernel(__nv_bfloat16 *, const "
      "__nv_bfloat16 *, long, int)+0x1c0\n"
      "=========\n"
      "========= ERROR SUMMARY: 2 errors\n";
  Json m = parseMemcheckLog(bad);
  EXPECT_TRUE(m.getBool("summary_found", false));
  EXPECT_EQ(m.getInt("errors", 0), 2);
  EXPECT_EQ(m.getString("first", ""),
            "Invalid __global__ read of size 2 bytes | at "
            "silu_and_mul_kernel(__nv_bfloat16 *, const "
            "__nv_bfloat16 *, long, int)+0x1c0");
  Json clean = parseMemcheckLog(
      "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.getBool("summary_found", false));
  EXPECT_EQ(clean.getInt("errors", -1), 0);
  EXPECT_EQ(clean.get("first"), nullptr);
  EXPECT_FALSE(parseMemcheckLog("").getBool("summary_found", true));

  WorkerRun ok = exited(0, "{\"status\":\"pass\",\"stage\":\"correctness\"}\n");
  Json r = passed(10);
  Outcome o = applyMemcheck(r, ok, bad);
  EXPECT_EQ(o.status, "fail");
  EXPECT_EQ(o.stage, "correctness");
  EXPECT_NE(o.reason.find("memcheck: 2 memory error(s) in the correctness "
                          "trials: Invalid __global__ read"),
            std::string::npos)
      << o.reason;
  EXPECT_TRUE(r.get("memcheck")->getBool("conclusive", false));
  r = passed(10);
  EXPECT_EQ(applyMemcheck(r, ok, "========= ERROR SUMMARY: 0 errors\n").status,
            "");
  EXPECT_TRUE(r.get("memcheck")->getBool("conclusive", false));
  // No summary (the run was killed, the tool missing): recorded, not held
  // against the unit.
  WorkerRun killed;
  killed.child.end = ChildResult::End::TimedOut;
  r = passed(10);
  EXPECT_EQ(applyMemcheck(r, killed, "").status, "");
  EXPECT_FALSE(r.get("memcheck")->getBool("conclusive", true));
  EXPECT_NE(r.get("memcheck")->getString("why", "").find("no memcheck summary"),
            std::string::npos);
}

TEST(GateRun, CompletedUnitsAndAppend) {
  std::string f = ::testing::TempDir() + "/atrex-gaterun.jsonl";
  fs::remove(f);
  appendResultLine(
      f,
      R"({"unit":0,"submission":{"name":"a"},"problem":{"id":"p1"},"status":"pass"})");
  appendResultLine(
      f,
      R"({"unit":1,"submission":{"name":"a"},"problem":{"id":"p2"},"status":"error"})");
  std::ofstream(f, std::ios::app) << R"({"unit":2,"subm)"; // torn
  appendResultLine(
      f,
      R"({"unit":3,"submission":{"name":"b"},"problem":{"id":"p1"},"status":"fail"})");
  std::vector<std::string> warnings;
  std::set<std::string> done = completedUnits(f, warnings);
  EXPECT_EQ(done, (std::set<std::string>{unitKey(0, "a", "p1"),
                                         unitKey(3, "b", "p1")}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(f + ":3"), std::string::npos) << warnings[0];
  std::ofstream(f, std::ios::app) << "{\"x\":1}\n";
  EXPECT_EQ(errorOf([&] { completedUnits(f, warnings); }),
            f + ":5: not an atrex-gate result");
  EXPECT_NE(errorOf([&] {
              completedUnits(f + ".missing", warnings);
            }).find("cannot read"),
            std::string::npos);
}

// The device-wide span of a timed call (clean run, CUPTI): every activity that
// started in the call's window, on any stream, without the gate's gap sleep;
// a side stream's kernel that outlasts the caller's stream sets the time.
TEST(Measurement, DeviceWideSpanCountsEveryStream) {
  auto act = [](const char *name, uint64_t start, uint64_t end, uint32_t corr,
                uint32_t stream) {
    Activity a;
    a.name = name;
    a.start = start;
    a.end = end;
    a.correlationId = corr;
    a.streamId = stream;
    return a;
  };
  std::vector<Activity> acts = {
      act("flush", 100, 900, 1, 7), act("spin", 960, 1000, 2, 7),
      act("main", 1000, 2000, 3, 7), act("side", 1500, 31000, 4, 9)};
  Activity copy = act("memcpy", 2000, 2500, 5, 9);
  copy.kind = Activity::Kind::Memcpy;
  acts.push_back(copy);
  Span sp = spanOf(acts, 950, 40000, "spin");
  EXPECT_DOUBLE_EQ(sp.us, 30.0);
  EXPECT_EQ(sp.activities, 3);
  EXPECT_EQ(sp.streams, 2);
  EXPECT_EQ(sp.kernels, (std::vector<std::string>{"main", "side"}));
  // Without the gap sleep (its name not given) the sleep is the call's.
  EXPECT_DOUBLE_EQ(spanOf(acts, 950, 40000, "").us, 30.04);
  // A candidate kernel of the sleep's name is not dropped unless it came first.
  EXPECT_EQ(
      spanOf({act("main", 1000, 2000, 3, 7), act("spin", 2000, 3000, 4, 7)},
             950, 4000, "spin")
          .activities,
      2);
  EXPECT_EQ(spanOf(acts, 50000, 60000, "spin").activities, 0);

  Sample smp;
  smp.eventUs = 1.0;
  smp.spanUs = sp.us;
  EXPECT_DOUBLE_EQ(smp.us(), 30.0);
  smp.spanUs = -1;
  EXPECT_DOUBLE_EQ(smp.us(), 1.0);
}

// The set of kernels of every timed call is compared with the first one's.
TEST(Measurement, KernelSetChangesAreCountedAndNamed) {
  EXPECT_EQ(kernelSetDiff({"a", "b"}, {"b", "a"}), "");
  EXPECT_EQ(kernelSetDiff({"a", "b"}, {"a", "c", "c"}), "+c x2, -b x1");
  Measurement m(3, 100, 0.5, 10);
  for (const std::vector<std::string> &ks :
       std::vector<std::vector<std::string>>{
           {"a", "b"}, {"b", "a"}, {"a", "c"}, {"a", "b"}}) {
    Sample s;
    s.eventUs = s.mainUs = s.wallUs = 10;
    s.kernels = ks;
    s.kernelsKnown = true;
    m.add(s);
  }
  EXPECT_FALSE(m.done(0)); // under 5 samples the interval is unbounded
  EXPECT_TRUE(m.done(11)); // past max_timed_s
  Json perf = Json::object();
  m.writeTo(perf);
  EXPECT_EQ(perf.getInt("reps", 0), 4);
  EXPECT_DOUBLE_EQ(perf.getDouble("median_us", 0), 10);
  const Json *ks = perf.get("kernel_set");
  ASSERT_NE(ks, nullptr);
  EXPECT_EQ(ks->getInt("checked_reps", 0), 4);
  EXPECT_EQ(ks->getInt("changed_reps", 0), 1);
  EXPECT_EQ(ks->getString("first_change", ""),
            "timed call 2 against the first: +c x1, -b x1");
}

// The timer check's exemption for a profiler the operator attached (Nsight
// Compute's injection made every unit under ncu suspicious, H200 2026-12-02c;
// matching CUDA_INJECTION64_PATH exempted nothing under ncu, 2026-12-02d):
// only a binding made before the submission loaded and left as it was.
TEST(GateRun, BoundBeforeSubmission) {
  int x = 0, y = 0;
  const std::string inj = "/opt/prof/libinj.so", sub = "/job/sub.so";
  EXPECT_TRUE(boundBeforeSubmission(inj, &x, inj, &x));
  EXPECT_FALSE(boundBeforeSubmission(inj, &x, sub, &y)); // rebound by the load
  EXPECT_FALSE(
      boundBeforeSubmission(inj, &x, inj, &y)); // same file, other address
  EXPECT_FALSE(boundBeforeSubmission("", nullptr, sub,
                                     &y)); // resolved only after the load
  EXPECT_FALSE(boundBeforeSubmission("", nullptr, "", nullptr));
  EXPECT_FALSE(boundBeforeSubmission("", &x, "", &x)); // no file to name
}

// The settings table (issue 16): every key parses, every key is documented in
// docs/gate.md's plan example, unknown keys are refused, and the worker gets
// the keys it reads.
TEST(Plan, SettingsComeFromOneTable) {
  std::ifstream doc(ATREX_RT_SOURCE_DIR "/../docs/gate.md");
  std::string text((std::istreambuf_iterator<char>(doc)), {});
  ASSERT_FALSE(text.empty());
  for (const std::string &k : settingKeys())
    EXPECT_NE(text.find("\"" + k + "\""), std::string::npos)
        << k << " is not documented in docs/gate.md";
  Json plan = Json::parse(
      R"({"settings":{"trials":5,"rss_mb":2,"ghost_replay":false,"gpu":"H200",
    "clean_timing_tolerance":0.2},"submissions":[{"source":"x.cu","operator":"rms_norm",
    "problems":[{"shape":{"T":1,"H":8}}]}]})");
  Plan p = parsePlan(plan, "p.json");
  EXPECT_EQ(p.settings.trials, 5);
  EXPECT_EQ(p.settings.rssBytes, 2LL << 20);
  EXPECT_FALSE(p.settings.ghostReplay);
  EXPECT_DOUBLE_EQ(p.settings.cleanTimingTolerance, 0.2);
  Json w = workerSettingsJson(p.settings);
  EXPECT_EQ(w.getInt("trials", 0), 5);
  EXPECT_FALSE(w.getBool("ghost_replay", true));
  EXPECT_EQ(w.getString("gpu", ""), "H200");
  EXPECT_FALSE(w.has("rss_mb")); // the parent's limit, not the worker's
  for (const char *k :
       {"trials", "warmup_ms", "min_reps", "max_reps", "max_timed_s",
        "target_rel_err", "graph_below_us", "recheck", "rotate_inputs", "gpu",
        "gap_sleep_cycles", "gpu_mb", "ghost_replay"})
    EXPECT_TRUE(w.has(k)) << k;
  Json bad = Json::parse(R"({"settings":{"trails":5},"submissions":[]})");
  try {
    parsePlan(bad, "p.json");
    ADD_FAILURE() << "an unknown settings key was accepted";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("trails"), std::string::npos)
        << e.what();
  }
  Json mib = Json::parse(R"({"settings":{"file_mb":-1},"submissions":[]})");
  EXPECT_THROW(parsePlan(mib, "p.json"), std::exception);
}

// The gate's stages (issue 16): one registry, names unique, compile first,
// every stage in docs/gate.md's "Stages" table.
TEST(AtrexGateStages, RegistryIsDocumented) {
  std::ifstream doc(ATREX_RT_SOURCE_DIR "/../docs/gate.md");
  std::string text((std::istreambuf_iterator<char>(doc)), {});
  ASSERT_FALSE(text.empty());
  const auto &stages = gateStages();
  ASSERT_GE(stages.size(), 5u);
  EXPECT_EQ(stages.front()->name(), "compile");
  std::set<std::string> names;
  PlanSettings defaults;
  for (const Stage *s : stages) {
    std::string n(s->name());
    EXPECT_TRUE(names.insert(n).second) << n << " is registered twice";
    EXPECT_NE(text.find("| `" + n + "` |"), std::string::npos)
        << n << " is not in docs/gate.md's Stages table";
  }
  PlanSettings memcheckOn = defaults;
  memcheckOn.memcheck = true;
  for (const Stage *s : stages)
    if (s->name() == "memcheck") {
      EXPECT_FALSE(s->enabled(defaults));
      EXPECT_TRUE(s->enabled(memcheckOn));
    }
}
