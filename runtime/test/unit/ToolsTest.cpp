//===- ToolsTest.cpp - atrex-ref and atrex-gate command lines (CPU) -------===//
#include "atrex-rt/Config.h"
#include "atrex-rt/Json.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Plan.h"
#include "atrex-rt/TensorDir.h"

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrex::rt;
namespace fs = std::filesystem;

namespace {
struct Out {
  int status;
  std::string text; // stdout + stderr
};
Out sh(const std::string &cmd) {
  Out o;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    o.text.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}
std::string tmp(const std::string &name) {
  std::string d = fs::path(::testing::TempDir() + "/atrex-tools-" + name)
                      .lexically_normal()
                      .string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
const std::string kRef = ATREX_BIN_DIR "/atrex-ref";
const std::string kGate = ATREX_BIN_DIR "/atrex-gate";
// A cuobjdump stand-in (absent from some CUDA installs, such as CI's) that
// extracts one fake cubin: <d>/cuobjdump.sh, for ATREX_CUOBJDUMP.
void fakeCuobjdump(const std::string &d) {
  std::ofstream(d + "/cuobjdump.sh")
      << "#!/bin/sh\necho fake-elf > sub.1.sm_90.cubin\n";
  fs::permissions(d + "/cuobjdump.sh", fs::perms::owner_all);
}
// The head of a scripted worker: the job document's run kind and options
// (atrex-gate-worker --job JOB.json) in shell variables.
const std::string kJobFields =
    "#!/bin/sh\n"
    "run=$(sed -n 's/^ *\"run\": *\"\\([a-z]*\\)\".*/\\1/p' \"$2\")\n"
    "graphs=$(sed -n 's/^ *\"graphs\": *\\([a-z]*\\).*/\\1/p' \"$2\")\n"
    "ktc=$(sed -n 's/^ *\"kernel_time_calls\": *\\([0-9]*\\).*/\\1/p' \"$2\")\n"
    "ktc=${ktc:-0}\n";
// One compile cache for the tests that compile a real submission (keyed by
// content).
std::string sharedCache() {
  return fs::path(::testing::TempDir() + "/atrex-tools-shared-cache")
      .lexically_normal()
      .string();
}
// A plan of one unit: the example silu_and_mul at T=2, D=8, with `settings`
// (the inside of the settings object).
void onePlan(const std::string &d, const std::string &settings) {
  std::ofstream(d + "/plan.json")
      << R"({"settings":{)" + settings + R"(},"submissions":[{"source":")" +
             std::string(ATREX_RT_SOURCE_DIR) +
             R"(/../examples/gate/silu_and_mul_naive.cu","operator":"silu_and_mul",
      "problems":[{"shape":{"T":2,"D":8}}]}]})";
}
} // namespace

TEST(AtrexRef, GenerateAndCheck) {
  std::string d = tmp("ref");
  Out o = sh(kRef + " --op silu_and_mul --shape T=3,D=64 --seed 4 --out " + d +
             "/ref");
  ASSERT_EQ(o.status, 0) << o.text;
  TensorDir td = readTensorDir(d + "/ref");
  EXPECT_EQ(td.op, "silu_and_mul");
  EXPECT_EQ(td.seed, 4);
  ASSERT_NE(td.find("out"), nullptr);
  EXPECT_EQ(td.find("out")->shape, (std::vector<int64_t>{3, 64}));
  // Same seed, same bytes.
  ASSERT_EQ(sh(kRef + " --op silu_and_mul --shape T=3,D=64 --seed 4 --out " +
               d + "/again")
                .status,
            0);
  EXPECT_EQ(readTensorDir(d + "/again").find("x")->data, td.find("x")->data);

  o = sh(kRef + " --op silu_and_mul --check " + d + "/ref --candidate " + d +
         "/again");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(Json::parse(o.text).get("ok")->asBool());

  // A candidate with a wrong element: exit 1, the report names it.
  TensorDir bad = readTensorDir(d + "/again");
  for (auto &t : bad.tensors)
    if (t.name == "out")
      t.data[0] ^= 0x40, t.data[1] ^= 0x7f;
  writeTensorDir(d + "/bad", bad);
  o = sh(kRef + " --op silu_and_mul --check " + d + "/ref --candidate " + d +
         "/bad");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("first at index 0"), std::string::npos) << o.text;
}

TEST(AtrexRef, ErrorsExitTwoAndNameTheProblem) {
  std::string d = tmp("ref-err");
  Out o = sh(kRef + " --op nope --shape T=1 --seed 1 --out " + d);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(
      o.text.find("unknown operator 'nope' (known: " + knownOpNames() + ")"),
      std::string::npos)
      << o.text;
  o = sh(kRef + " --op rms_norm --shape T=1 --seed 1 --out " + d);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("shape key 'H' missing"), std::string::npos) << o.text;
  o = sh(kRef + " --op rms_norm --check " + d + "/missing --candidate " + d);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find(d + "/missing/tensors.json"), std::string::npos)
      << o.text;
  o = sh(kRef + " --op rms_norm --seed x --shape T=1,H=8 --out " + d);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--seed 'x'"), std::string::npos) << o.text;
}

TEST(AtrexRef, ListAndSignature) {
  Out o = sh(kRef + " --list-json");
  ASSERT_EQ(o.status, 0);
  Json ops = Json::parse(o.text);
  // One entry per operator definition (suites/atrex-serve/ops/*.mlir).
  size_t definitions = 0;
  for (const auto &entry :
       fs::directory_iterator(ATREX_RT_SOURCE_DIR "/../suites/atrex-serve/ops"))
    definitions += entry.path().extension() == ".mlir";
  EXPECT_EQ(ops.size(), definitions);
  EXPECT_EQ(ops.size(), allOpSpecs().size());
  o = sh(kRef + " --op gemm_bf16 --signature");
  EXPECT_EQ(o.text, "void gemm_bf16(torch::Tensor& out, const torch::Tensor& "
                    "x, const torch::Tensor& w)\n");
}

TEST(AtrexGate, CompileFailureIsAResultAndTheRunGoesOn) {
  std::string d = tmp("gate");
  std::ofstream(d + "/broken.cu") << "this is not C++\n";
  std::ofstream(d + "/plan.json")
      << R"({"schema":"atrex-gate-plan/1","settings":{"compile_s":120},
    "submissions":[
      {"source":"missing.cu","operator":"rms_norm","expected_verdict":"adopted","problems":[{"shape":{"T":1,"H":8}}]},
      {"source":"broken.cu","operator":"rms_norm","problems":[{"shape":{"T":1,"H":8}},{"shape":{"T":2,"H":8}}]},
      {"source":"broken.cu","name":"hip","lang":"hip","operator":"rms_norm","problems":[{"shape":{"T":1,"H":8}}]}]})";
  // The HIP unit needs HIP's patched headers (runtime build or
  // ATREX_HIP_INCLUDE): with them nvcc fails on the source (status fail),
  // without them the gate lacks a tool (status error, exit 2).
  bool haveHip = *ATREX_RT_HIP_INCLUDE || std::getenv("ATREX_HIP_INCLUDE");
  Out o = sh(kGate + " --plan " + d + "/plan.json --out " + d +
             "/r.jsonl --cache " + d + "/cache");
  EXPECT_EQ(o.status, haveHip ? 0 : 2) << o.text;
  EXPECT_NE(o.text.find("[4/4]"), std::string::npos) << o.text;
  std::ifstream in(d + "/r.jsonl");
  std::vector<Json> rs;
  for (std::string line; std::getline(in, line);)
    rs.push_back(Json::parse(line));
  ASSERT_EQ(rs.size(), 4u);
  for (const Json &r : rs) {
    EXPECT_EQ(validateResult(r), "") << r.dump();
    EXPECT_EQ(r.getString("status", ""),
              &r != &rs[3] || haveHip ? "fail" : "error");
    EXPECT_EQ(r.getString("stage", ""), "compile");
  }
  EXPECT_NE(rs[0].getString("reason", "").find(d + "/missing.cu"),
            std::string::npos);
  EXPECT_FALSE(rs[0].getBool("expected_verdict_met", true));
  EXPECT_NE(rs[1].getString("reason", "").find("nvcc failed"),
            std::string::npos)
      << rs[1].dump();
  EXPECT_NE(rs[1].get("compile")->getString("log_tail", "").find("broken.cu"),
            std::string::npos);
  EXPECT_NE(rs[3]
                .getString("reason", "")
                .find(haveHip ? "nvcc failed" : "HIP headers not available"),
            std::string::npos)
      << rs[3].dump();
  if (haveHip)
    EXPECT_NE(rs[3]
                  .get("compile")
                  ->getString("command", "")
                  .find("-D__HIP_PLATFORM_NVIDIA__"),
              std::string::npos);
}

// The real worker's report lines carry the run's key and get through: on a
// machine without a GPU its own "no CUDA device" error arrives intact (a
// key mismatch would read as forgery); with a GPU the unit passes.
TEST(AtrexGate, RealWorkerReportsThroughTheKeyedChannel) {
  std::string d = tmp("gate-real-worker");
  fakeCuobjdump(d);
  std::ofstream(d + "/plan.json")
      << R"({"settings":{"problem_s":60,"max_timed_s":0.1},"submissions":[{"source":")" +
             std::string(ATREX_RT_SOURCE_DIR) +
             R"(/../examples/gate/silu_and_mul_naive.cu","operator":"silu_and_mul",
      "problems":[{"shape":{"T":2,"D":8}}]}]})";
  Out o = sh("ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh " + kGate +
             " --quiet --plan " + d + "/plan.json --out " + d +
             "/r.jsonl --cache " + sharedCache());
  std::ifstream in(d + "/r.jsonl");
  std::string line;
  ASSERT_TRUE(static_cast<bool>(std::getline(in, line))) << o.text;
  Json r = Json::parse(line);
  EXPECT_EQ(r.getString("reason", "").find("forgery"), std::string::npos)
      << line;
  ASSERT_NE(r.get("gate"), nullptr) << line;
  EXPECT_EQ(r.get("gate")->getString("version", ""), ATREX_RT_VERSION);
  EXPECT_EQ(r.get("gate")->getString("commit", ""), ATREX_RT_GIT_COMMIT);
  // Where the worker's seconds went, up to the stage it reached.
  ASSERT_NE(r.get("worker_seconds"), nullptr) << line;
  const Json *ws = r.get("worker_seconds")->get("attributed");
  ASSERT_NE(ws, nullptr) << line;
  EXPECT_GT(ws->getDouble("setup", -1), 0) << line;
  EXPECT_GE(ws->getDouble("wall_s", -1), ws->getDouble("setup", 0)) << line;
  if (r.getString("status", "") != "pass") {
    EXPECT_EQ(r.getString("status", ""), "error") << line;
    EXPECT_EQ(r.getString("reason", ""), "no CUDA device visible to the worker")
        << line;
  }
}

// Two plan entries with the same source have the same cache key: compiled
// by two --jobs threads at once, each must build in a scratch directory of
// its own (both used <key>.tmp.<pid>, and one failed: issue 15). The fake
// nvcc writes the library, then sleeps, so both builds overlap.
TEST(AtrexGate, ParallelCompilesOfOneSourceEachSucceed) {
  std::string d = tmp("gate-jobs-race");
  fakeCuobjdump(d);
  std::ofstream(d + "/nvcc.sh")
      << "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; "
         "shift; done\n"
         "echo fake-so > \"$out\" || exit 1\nsleep 2\n";
  fs::permissions(d + "/nvcc.sh", fs::perms::owner_all);
  std::ofstream(d + "/k.cu") << "// same bytes for both entries\n";
  std::ofstream(d + "/plan.json") << R"({"submissions":[
    {"name":"a","source":"k.cu","operator":"rms_norm","problems":[{"shape":{"T":1,"H":8}}]},
    {"name":"b","source":"k.cu","operator":"rms_norm","problems":[{"shape":{"T":1,"H":8}}]}]})";
  Out o = sh("ATREX_NVCC=" + d + "/nvcc.sh ATREX_CUOBJDUMP=" + d +
             "/cuobjdump.sh " + kGate + " --compile-only --jobs 2 --plan " + d +
             "/plan.json --out " + d + "/r.jsonl --cache " + d + "/cache");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("compiled 2 of 2 submissions"), std::string::npos)
      << o.text;
  // Nothing of the scratch directories is left in the cache.
  for (const auto &e : fs::directory_iterator(d + "/cache"))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos)
        << e.path();
}

TEST(AtrexGate, ShardsSplitThePlan) {
  std::string d = tmp("gate-shard");
  std::ofstream(d + "/plan.json")
      << R"({"submissions":[{"source":"missing.cu","operator":"rms_norm",
    "problems":[{"shape":{"T":1,"H":8}},{"shape":{"T":2,"H":8}},{"shape":{"T":3,"H":8}}]}]})";
  for (const char *s : {"0/2", "1/2"})
    ASSERT_EQ(sh(kGate + " --quiet --shard " + s + " --plan " + d +
                 "/plan.json --out " + d + "/r.jsonl --cache " + d + "/c")
                  .status,
              0);
  std::ifstream in(d + "/r.jsonl");
  std::vector<int64_t> units;
  for (std::string line; std::getline(in, line);)
    units.push_back(Json::parse(line).getInt("unit", -1));
  std::sort(units.begin(), units.end());
  EXPECT_EQ(units, (std::vector<int64_t>{0, 1, 2}));
}

TEST(AtrexGate, ResumeRunsOnlyTheMissingUnits) {
  std::string d = tmp("gate-resume");
  std::ofstream(d + "/plan.json")
      << R"({"submissions":[{"source":"missing.cu","operator":"rms_norm",
    "problems":[{"shape":{"T":1,"H":8}},{"shape":{"T":2,"H":8}},{"shape":{"T":3,"H":8}}]}]})";
  std::string base = kGate + " --plan " + d + "/plan.json --out " + d +
                     "/r.jsonl --cache " + d + "/c";
  ASSERT_EQ(sh(base + " --quiet --shard 0/2 --jobs 1").status, 0);
  // A run killed while writing leaves a torn last line: ignored by --resume.
  std::ofstream(d + "/r.jsonl", std::ios::app)
      << R"({"schema":"atrex-gate-result/1","unit":1,"subm)";
  Out o = sh(base + " --resume --jobs 2");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("1 units in shard 0/1"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("(2 already in " + d + "/r.jsonl)"), std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("compiling 1 submissions (2 at a time)"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("warning: --resume: ignoring " + d + "/r.jsonl:3"),
            std::string::npos)
      << o.text;
  // The torn line stays a line of its own; the new result starts on the next.
  std::ifstream in(d + "/r.jsonl");
  std::vector<int64_t> units;
  int torn = 0;
  for (std::string line; std::getline(in, line);)
    try {
      units.push_back(Json::parse(line).getInt("unit", -1));
    } catch (const std::exception &) {
      ++torn;
    }
  EXPECT_EQ(torn, 1);
  std::sort(units.begin(), units.end());
  EXPECT_EQ(units, (std::vector<int64_t>{0, 1, 2}));
  // Everything done: nothing runs.
  o = sh(base + " --resume");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(
      o.text.find("0 units in shard 0/1 of " + d + "/plan.json (3 already in"),
      std::string::npos)
      << o.text;
  // --compile-only: every submission of the shard, no results; 1 when one
  // failed to compile.
  o = sh(kGate + " --plan " + d + "/plan.json --out " + d +
         "/none.jsonl --cache " + d + "/c --compile-only");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("compiled 0 of 1 submissions into " + d + "/c"),
            std::string::npos)
      << o.text;
  EXPECT_FALSE(fs::exists(d + "/none.jsonl"));
  // A file that is not a results file is an error naming it; bad --jobs too.
  std::ofstream(d + "/other.jsonl") << "{\"a\":1}\n{\"b\":2}\n";
  o = sh(kGate + " --plan " + d + "/plan.json --out " + d +
         "/other.jsonl --resume");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find(d + "/other.jsonl:1: not an atrex-gate result"),
            std::string::npos)
      << o.text;
  o = sh(base + " --jobs 0");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--jobs '0': expected 1..256"), std::string::npos)
      << o.text;
}

// The time of a passing unit comes from a second worker run without the
// Sanitizer (ATREX_GATE_NO_ATTRIBUTION=1), used only within the tolerance of
// the attributed run's median. A scripted worker stands in for the real one.
TEST(AtrexGate, CleanTimingRunGivesTheTimeWithinTolerance) {
  std::string d = tmp("gate-clean");
  std::ofstream(d + "/worker.sh") << kJobFields + R"(
read seed key
echo "run $run graphs=$graphs" >> "$FAKE_LOG"
if [ "$run" = clean ]; then
  [ -n "$FAKE_CLEAN_CRASH" ] && kill -SEGV $$
  if [ -n "$FAKE_CLEAN_FAIL" ]; then
    echo "$key "'{"status":"fail","stage":"correctness","reason":"wrong when unobserved"}' >&3; exit 0
  fi
  kt=""
  if [ "$ktc" -gt 0 ]; then
    kt=",\"kernel_times\":{\"calls\":$ktc,\"kernels\":[{\"name\":\"gemm\",\"launches\":3,\"total_us\":75},{\"name\":\"copy\",\"launches\":3,\"total_us\":25}]}"
  fi
  wide=true; [ -n "$FAKE_NO_SPAN" ] && wide=false
  echo "$key {\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":$FAKE_CLEAN_US,\"p10_us\":1,\"p90_us\":2,\"reps\":7,\"mode\":\"eager\",\"device_wide\":$wide,\"device_wide_reps\":7,\"device_wide_error\":\"no CUPTI here\"},\"attribution\":{\"available\":false}$kt}" >&3
else
  att="\"available\":true,\"verdict\":\"adopted\""
  if [ -n "$FAKE_MIXED" ]; then
    att="\"available\":true,\"verdict\":\"fallback\",\"timed_own_launches\":3,\"timed_foreign_launches\":3,\"own_time_share\":null,\"kernels\":[{\"name\":\"copy\",\"own\":true},{\"name\":\"gemm\",\"own\":false}]"
  fi
  echo "$key {\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":100,\"p10_us\":99,\"p90_us\":101,\"reps\":10,\"mode\":\"eager\",\"side_stream_reps\":${FAKE_SIDE:-0},\"destroyed_stream_reps\":${FAKE_DESTROYED:-0},\"launch_gap_hidden\":true},\"attribution\":{$att}}" >&3
  # The candidate shares fd 3: a line of its own, without the key.
  [ -n "$FAKE_FORGE" ] && echo '{"status":"pass","stage":"done","performance":{"median_us":1}}' >&3
fi
)";
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  fakeCuobjdump(d);
  auto plan = [&](const std::string &settings,
                  const std::string &expected = "adopted") {
    std::ofstream(d + "/plan.json")
        << R"({"settings":{"read_only_view":false)" +
               (settings.empty() ? std::string() : "," + settings) +
               R"(},"submissions":[{"source":")" +
               std::string(ATREX_RT_SOURCE_DIR) +
               R"(/../examples/gate/silu_and_mul_naive.cu","operator":"silu_and_mul",
      "expected_verdict":")" +
               expected + R"(","problems":[{"shape":{"T":2,"D":8}}]}]})";
  };
  auto gate = [&](const std::string &env, int &runs,
                  const std::string &want = "pass") {
    fs::remove(d + "/r.jsonl");
    fs::remove(d + "/log");
    Out o = sh("ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh FAKE_LOG=" + d +
               "/log " + env + " " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    EXPECT_EQ(o.status, 0) << o.text;
    std::ifstream log(d + "/log");
    std::string all((std::istreambuf_iterator<char>(log)), {});
    runs = static_cast<int>(std::count(all.begin(), all.end(), '\n'));
    if (runs == 2)
      EXPECT_EQ(
          all,
          std::string("run attributed graphs=\nrun clean graphs=") +
              (env.find("FAKE_SIDE") == std::string::npos ? "true" : "false") +
              "\n");
    std::ifstream in(d + "/r.jsonl");
    std::string line;
    std::getline(in, line);
    Json r = Json::parse(line);
    EXPECT_EQ(validateResult(r), "") << line;
    EXPECT_EQ(r.getString("status", ""), want) << line;
    EXPECT_EQ(r.getBool("expected_verdict_met", false), want == "pass") << line;
    return r;
  };
  plan("");
  int runs = 0;
  Json r = gate("FAKE_CLEAN_US=96", runs);
  const Json *p = r.get("performance");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(p->getDouble("median_us", 0), 96);
  EXPECT_EQ(p->getInt("reps", 0), 7);
  EXPECT_EQ(p->get("attributed")->getDouble("median_us", 0), 100);
  EXPECT_TRUE(p->get("clean_run")->getBool("used", false));
  EXPECT_NEAR(p->get("clean_run")->getDouble("ratio_to_attributed", 0), 0.96,
              1e-9);

  // Far faster when not observed: the attributed time stands.
  r = gate("FAKE_CLEAN_US=50", runs);
  p = r.get("performance");
  EXPECT_EQ(p->getDouble("median_us", 0), 100);
  EXPECT_FALSE(p->get("clean_run")->getBool("used", true));
  EXPECT_NE(p->get("clean_run")
                ->getString("why", "")
                .find("0.5x the attributed one, outside 1 +- 0.1"),
            std::string::npos)
      << r.dump();
  EXPECT_EQ(p->get("attributed"), nullptr);

  // Wrong output when not observed fails the unit; the attributed figures stay.
  r = gate("FAKE_CLEAN_FAIL=1", runs, "fail");
  p = r.get("performance");
  EXPECT_EQ(r.getString("reason", ""),
            "clean timing run (no attribution): wrong when unobserved");
  EXPECT_EQ(r.getString("stage", ""), "correctness");
  EXPECT_EQ(p->getDouble("median_us", 0), 100);
  EXPECT_EQ(
      p->get("clean_run")->getString("why", ""),
      "the clean run did not pass: fail at correctness: wrong when unobserved");
  // A clean run that crashes fails the unit too.
  r = gate("FAKE_CLEAN_CRASH=1", runs, "fail");
  EXPECT_NE(r.getString("reason", "")
                .find("clean timing run (no attribution): setup: "),
            std::string::npos)
      << r.dump();

  // Own and foreign kernels in the timed calls: the clean run is asked for
  // kernel durations (the job's kernel_time_calls) and the share is measured.
  plan(R"("own_share_calls":4)", "fallback");
  r = gate("FAKE_MIXED=1 FAKE_CLEAN_US=96", runs);
  const Json *a = r.get("attribution");
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->getDouble("own_time_share", -1), 0.25) << r.dump();
  EXPECT_NE(a->getString("own_time_share_source", "").find("4 untimed calls"),
            std::string::npos);
  // Without them in the plan's clean run settings: null with the reason.
  plan(R"("clean_timing":false)", "fallback");
  r = gate("FAKE_MIXED=1 FAKE_CLEAN_US=96", runs);
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(r.get("attribution")->get("own_time_share")->isNull());
  EXPECT_EQ(r.get("attribution")->getString("own_time_share_why", ""),
            "clean_timing is off: kernel durations not measured");
  plan("");

  // Lines on the report channel without this run's key (the candidate writing
  // to fd 3, which it shares with the worker) fail the unit, whatever the
  // gate's own lines said.
  r = gate("FAKE_FORGE=1 FAKE_CLEAN_US=96", runs, "fail");
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(r.getString("reason", ""),
            "done: the submission wrote 1 line(s) to the gate's report channel "
            "(file descriptor 3): "
            "report forgery")
      << r.dump();

  // Side streams: the clean run measures device-wide (CUPTI), captures no
  // graphs, and its time is taken when not faster than the attributed one.
  r = gate("FAKE_SIDE=3 FAKE_CLEAN_US=150", runs);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 150) << r.dump();
  r = gate("FAKE_SIDE=3 FAKE_CLEAN_US=50", runs);
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100) << r.dump();
  // A side stream destroyed before the gate could time it and no device-wide
  // span: the gate cannot time the unit (its error, exit 2).
  fs::remove(d + "/r.jsonl");
  Out o =
      sh("ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh FAKE_LOG=" + d +
         "/log FAKE_SIDE=3 FAKE_DESTROYED=10 "
         "FAKE_NO_SPAN=1 FAKE_CLEAN_US=150 " +
         kGate + " --quiet --plan " + d + "/plan.json --out " + d +
         "/r.jsonl --cache " + sharedCache() + " --worker " + d + "/worker.sh");
  EXPECT_EQ(o.status, 2) << o.text;
  r = Json::parse(readFile(d + "/r.jsonl"));
  EXPECT_EQ(r.getString("status", ""), "error") << r.dump();
  EXPECT_NE(r.getString("reason", "")
                .find("destroyed a stream its timed call launched on"),
            std::string::npos)
      << r.dump();

  // A wider tolerance admits the 0.5x; clean_timing false runs the worker once.
  plan(R"("clean_timing_tolerance":0.6)");
  r = gate("FAKE_CLEAN_US=50", runs);
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 50);
  plan(R"("clean_timing":false)");
  r = gate("FAKE_CLEAN_US=50", runs);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(r.get("performance")->get("clean_run"), nullptr);
  EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), 100);
}

// settings.memcheck: the correctness trials once more under compute-sanitizer's
// memcheck (a scripted tool and worker here; ATREX_COMPUTE_SANITIZER names it).
TEST(AtrexGate, MemcheckRunFailsUnitsWithMemoryErrors) {
  std::string d = tmp("gate-memcheck");
  std::ofstream(d + "/worker.sh") << kJobFields + R"SH(
read seed key
echo "run $run ${PYTORCH_NO_CUDA_MEMORY_CACHING:-0}" >> "$FAKE_LOG"
if [ "$run" = memcheck ]; then
  echo "$key "'{"status":"pass","stage":"correctness"}' >&3; exit 0
fi
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":100,"p10_us":99,"p90_us":101,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true},"attribution":{"available":true,"verdict":"adopted"}}' >&3
)SH";
  std::ofstream(d + "/sanitizer.sh") << R"SH(#!/bin/sh
[ "$1 $2 $3" = "--tool memcheck --log-file" ] || exit 9
log=$4; shift 6
if [ -n "$FAKE_MEMCHECK_ERR" ]; then
  printf '========= COMPUTE-SANITIZER\n========= Invalid __global__ read of size 4 bytes\n=========     at k(float *)+0x10\n========= ERROR SUMMARY: 1 error\n' > "$log"
elif [ -z "$FAKE_MEMCHECK_NOLOG" ]; then
  printf '========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n' > "$log"
fi
exec "$@"
)SH";
  fakeCuobjdump(d);
  for (const char *f : {"/worker.sh", "/sanitizer.sh"})
    fs::permissions(d + f, fs::perms::owner_all);
  std::ofstream(d + "/plan.json")
      << R"({"settings":{"memcheck":true,"clean_timing":false,"read_only_view":false},"submissions":[{"source":")" +
             std::string(ATREX_RT_SOURCE_DIR) +
             R"(/../examples/gate/silu_and_mul_naive.cu","operator":"silu_and_mul",
      "problems":[{"shape":{"T":2,"D":8}}]}]})";
  auto gate = [&](const std::string &env) {
    fs::remove(d + "/r.jsonl");
    fs::remove(d + "/log");
    Out o = sh(env + " FAKE_LOG=" + d + "/log ATREX_COMPUTE_SANITIZER=" + d +
               "/sanitizer.sh ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh " + kGate +
               " --quiet --plan " + d + "/plan.json --out " + d +
               "/r.jsonl --cache " + sharedCache() + " --worker " + d +
               "/worker.sh");
    EXPECT_EQ(o.status, 0) << o.text;
    std::ifstream log(d + "/log");
    std::string all((std::istreambuf_iterator<char>(log)), {});
    EXPECT_EQ(all, "run attributed 0\nrun memcheck 1\n");
    std::ifstream in(d + "/r.jsonl");
    std::string line;
    std::getline(in, line);
    return Json::parse(line);
  };
  Json r = gate("");
  EXPECT_EQ(r.getString("status", ""), "pass") << r.dump();
  EXPECT_EQ(r.get("memcheck")->getInt("errors", -1), 0) << r.dump();
  EXPECT_TRUE(r.get("memcheck")->getBool("conclusive", false));
  r = gate("FAKE_MEMCHECK_ERR=1");
  EXPECT_EQ(r.getString("status", ""), "fail") << r.dump();
  EXPECT_EQ(r.getString("reason", ""),
            "memcheck: 1 memory error(s) in the correctness trials: Invalid "
            "__global__ read of size 4 bytes | at k(float *)+0x10")
      << r.dump();
  r = gate("FAKE_MEMCHECK_NOLOG=1");
  EXPECT_EQ(r.getString("status", ""), "pass") << r.dump();
  EXPECT_FALSE(r.get("memcheck")->getBool("conclusive", true)) << r.dump();
}

// A worker (standing in for a candidate inside it) that leaves a process
// running in a session of its own fails its unit; the process is killed.
TEST(AtrexGate, ProcessesLeftBehindFailTheUnit) {
  std::string d = tmp("gate-escape");
  std::ofstream(d + "/worker.sh") << R"SH(#!/bin/sh
read seed key
setsid sh -c 'echo $$ > "$0"; exec sleep 300' "$FAKE_PIDFILE" > /dev/null 2>&1 < /dev/null &
while [ ! -s "$FAKE_PIDFILE" ]; do sleep 0.05; done
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":100,"p10_us":99,"p90_us":101,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true},"attribution":{"available":true,"verdict":"adopted"}}' >&3
)SH";
  fakeCuobjdump(d);
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  onePlan(d, R"("clean_timing":false,"read_only_view":false)");
  Out o =
      sh("FAKE_PIDFILE=" + d + "/pid ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh " +
         kGate + " --quiet --plan " + d + "/plan.json --out " + d +
         "/r.jsonl --cache " + sharedCache() + " --worker " + d + "/worker.sh");
  EXPECT_EQ(o.status, 0) << o.text;
  std::ifstream in(d + "/r.jsonl");
  std::string line;
  std::getline(in, line);
  Json r = Json::parse(line);
  EXPECT_EQ(r.getString("status", ""), "fail") << line;
  EXPECT_EQ(r.getString("reason", ""),
            "done: the submission left 1 process(es) running outside the "
            "worker's process group (killed by the gate)")
      << line;
  std::ifstream pf(d + "/pid");
  int pid = 0;
  ASSERT_TRUE(static_cast<bool>(pf >> pid));
  EXPECT_NE(kill(pid, 0), 0)
      << "the escaped process " << pid << " is still alive";
}

// Ghost replay (issue 15), the parent's side: a worker whose ghost call
// still produced the reference reports integrity.ghost_replay with
// `suspicious` and ends the unit failed at correctness; the parent makes the
// verdict `suspicious` (not the attribution's `adopted`) and keeps the record.
// The honest report (ghost call ran, output not matched) stays adopted.
TEST(AtrexGate, GhostReplayMakesTheUnitSuspicious) {
  std::string d = tmp("gate-ghost");
  std::ofstream(d + "/worker.sh") << R"SH(#!/bin/sh
read seed key
if [ "$FAKE_GHOST" = matched ]; then
echo "$key "'{"status":"fail","stage":"correctness","reason":"integrity: ghost replay: with its 1 own kernel launch(es) suppressed the call still produced the reference output","attribution":{"available":true,"verdict":"adopted"},"integrity":{"ghost_replay":{"ran":true,"own_launches_suppressed":1,"output_matched_reference":true,"suspicious":"ghost replay"},"suspicious":"ghost replay"}}' >&3
else
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":100,"p10_us":99,"p90_us":101,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true},"attribution":{"available":true,"verdict":"adopted"},"integrity":{"ghost_replay":{"ran":true,"own_launches_suppressed":1,"output_matched_reference":false}}}' >&3
fi
)SH";
  fakeCuobjdump(d);
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  onePlan(d, R"("clean_timing":false,"read_only_view":false)");
  for (std::string mode : {"matched", "honest"}) {
    SCOPED_TRACE(mode);
    fs::remove(d + "/r.jsonl");
    Out o = sh("FAKE_GHOST=" + mode + " ATREX_CUOBJDUMP=" + d +
               "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    Json r = Json::parse(readFile(d + "/r.jsonl"));
    const Json *g =
        r.get("integrity") ? r.get("integrity")->get("ghost_replay") : nullptr;
    ASSERT_NE(g, nullptr) << r.dump();
    EXPECT_TRUE(g->getBool("ran", false)) << r.dump();
    EXPECT_EQ(o.status, 0)
        << o.text; // failed units are results, not a failed run
    if (mode == "matched") {
      EXPECT_EQ(r.getString("status", ""), "fail") << r.dump();
      EXPECT_EQ(r.getString("stage", ""), "correctness") << r.dump();
      EXPECT_EQ(r.getString("verdict", ""), "suspicious") << r.dump();
      EXPECT_NE(r.getString("reason", "").find("ghost replay"),
                std::string::npos)
          << r.dump();
    } else {
      EXPECT_EQ(r.getString("status", ""), "pass") << r.dump();
      EXPECT_EQ(r.getString("verdict", ""), "adopted") << r.dump();
      EXPECT_FALSE(g->getBool("output_matched_reference", true)) << r.dump();
    }
  }
}

// The floor stage: a passing unit whose median is below its problem's
// floor_s is suspicious (no kernel does the work that fast); above it the
// unit passes as the worker said.
TEST(AtrexGate, FloorStageFailsTimesBelowTheFloor) {
  std::string d = tmp("gate-floor");
  std::ofstream(d + "/worker.sh") << R"SH(#!/bin/sh
read seed key
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":'"$FAKE_MEDIAN_US"',"p10_us":1,"p90_us":1,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true},"attribution":{"available":true,"verdict":"adopted"}}' >&3
)SH";
  fakeCuobjdump(d);
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  std::ofstream(d + "/plan.json")
      << R"({"settings":{"clean_timing":false,"read_only_view":false},"submissions":[{"source":")" +
             std::string(ATREX_RT_SOURCE_DIR) +
             R"(/../examples/gate/silu_and_mul_naive.cu","operator":"silu_and_mul",
      "problems":[{"shape":{"T":2,"D":8},"floor_s":2e-6}]}]})";
  for (std::string median : {"1.5", "2.5"}) {
    SCOPED_TRACE(median);
    fs::remove(d + "/r.jsonl");
    Out o = sh("FAKE_MEDIAN_US=" + median + " ATREX_CUOBJDUMP=" + d +
               "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    EXPECT_EQ(o.status, 0) << o.text;
    Json floored = Json::parse(readFile(d + "/r.jsonl"));
    if (median == "1.5") {
      EXPECT_EQ(floored.getString("status", ""), "fail") << floored.dump();
      EXPECT_EQ(floored.getString("verdict", ""), "suspicious")
          << floored.dump();
      EXPECT_EQ(floored.getString("reason", ""),
                "median time below the impossibility floor");
    } else {
      EXPECT_EQ(floored.getString("status", ""), "pass") << floored.dump();
      EXPECT_EQ(floored.getString("verdict", ""), "adopted") << floored.dump();
    }
  }
}

// The clock-check stage: a unit timed while the GPU slowed its clocks for heat
// is the gate's error (run again), the power cap is normal, and
// clock_check: false turns the stage off.
TEST(AtrexGate, ClocksStageMakesThrottledTimingsTheGatesError) {
  std::string d = tmp("gate-clocks");
  std::ofstream(d + "/worker.sh") << R"SH(#!/bin/sh
read seed key
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":50,"p10_us":49,"p90_us":51,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true,"clocks":{"before":{"sm_mhz":1980,"clock_event_reasons":[]},"after":{"sm_mhz":1500,"clock_event_reasons":['"$FAKE_REASONS"']}}},"attribution":{"available":true,"verdict":"adopted"}}' >&3
)SH";
  fakeCuobjdump(d);
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  struct Case {
    std::string reasons, settings, status;
  } cases[] = {
      {R"(\"sw_power_cap\",\"hw_thermal\")",
       R"("clean_timing":false,"read_only_view":false)", "error"},
      {R"(\"sw_power_cap\")", R"("clean_timing":false,"read_only_view":false)",
       "pass"},
      {R"(\"hw_thermal\")",
       R"("clean_timing":false,"read_only_view":false,"clock_check":false)",
       "pass"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.reasons + " " + c.settings);
    onePlan(d, c.settings);
    fs::remove(d + "/r.jsonl");
    Out o = sh("FAKE_REASONS=\"" + c.reasons + "\" ATREX_CUOBJDUMP=" + d +
               "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    Json r = Json::parse(readFile(d + "/r.jsonl"));
    EXPECT_EQ(r.getString("status", ""), c.status) << r.dump();
    if (c.status == "error") {
      EXPECT_EQ(o.status, 2) << o.text; // a unit in the gate's error
      EXPECT_EQ(r.getString("stage", ""), "performance");
      EXPECT_NE(
          r.getString("reason", "")
              .find("slowed its clocks during the timed calls (hw_thermal)"),
          std::string::npos)
          << r.dump();
    } else {
      EXPECT_EQ(o.status, 0) << o.text;
    }
  }
}

// Each worker run gets an empty HOME and TMPDIR of its own; what it leaves
// there, and what appears in the shared /tmp while it runs, is recorded.
TEST(AtrexGate, FilesTheWorkerWritesAreRecorded) {
  std::string d = tmp("gate-files");
  std::string leak = "/tmp/atrex-test-leak-" + std::to_string(getpid());
  std::ofstream(d + "/worker.sh") << kJobFields + R"SH(
read seed key
case "$HOME" in "$TMPDIR"|/root|"") exit 7;; esac
[ -z "$(ls -A "$HOME")$(ls -A "$TMPDIR")" ] || exit 8
echo secret > "$TMPDIR/note.txt"; mkdir -p "$HOME/.cache"; echo x > "$HOME/.cache/x"
echo leak > "$FAKE_LEAK"
echo "$key "'{"status":"pass","stage":"done","performance":{"median_us":100,"p10_us":99,"p90_us":101,"reps":10,"mode":"eager","side_stream_reps":0,"launch_gap_hidden":true},"attribution":{"available":true,"verdict":"adopted"}}' >&3
)SH";
  fakeCuobjdump(d);
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  // With the read-only view (the default; it needs root) the write to /tmp
  // is refused; without it (read_only_view: false, or no privileges) it
  // happens and is recorded under outside_tmp.
  for (bool view : {true, false}) {
    SCOPED_TRACE(view ? "read_only_view: true" : "read_only_view: false");
    fs::remove(d + "/r.jsonl");
    onePlan(d, std::string(R"("clean_timing":false,"read_only_view":)") +
                   (view ? "true" : "false"));
    Out o = sh("FAKE_LEAK=" + leak + " ATREX_CUOBJDUMP=" + d +
               "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    bool leaked = fs::exists(leak);
    fs::remove(leak);
    EXPECT_EQ(o.status, 0) << o.text;
    Json r = Json::parse(readFile(d + "/r.jsonl"));
    EXPECT_EQ(r.getString("status", ""), "pass") << r.dump();
    const Json *se = r.get("side_effects");
    ASSERT_NE(se, nullptr) << r.dump();
    const Json *att = se->get("attributed");
    ASSERT_NE(att, nullptr) << r.dump();
    EXPECT_EQ(att->getInt("count", 0), 2) << r.dump();
    std::string files = att->get("files")->dump();
    EXPECT_NE(files.find("\"tmp/note.txt\""), std::string::npos) << files;
    EXPECT_NE(files.find("\"home/.cache/x\""), std::string::npos) << files;
    bool inView = r.get("child")->getBool("read_only_view", false);
    if (!view)
      EXPECT_FALSE(inView) << r.dump();
    if (view && geteuid() == 0)
      EXPECT_TRUE(inView) << r.get("child")->dump();
    if (inView) {
      EXPECT_FALSE(leaked);
      // Other processes of the machine may change /tmp meanwhile (a build
      // beside the tests made this flaky): the leak itself must be absent.
      if (const Json *out = att->get("outside_tmp"))
        EXPECT_EQ(out->dump().find(leak), std::string::npos) << r.dump();
      EXPECT_NE(r.get("child")
                    ->getString("stderr_tail", "")
                    .find("Read-only file system"),
                std::string::npos)
          << r.dump();
    } else {
      EXPECT_TRUE(leaked);
      ASSERT_NE(att->get("outside_tmp"), nullptr) << r.dump();
      EXPECT_NE(att->get("outside_tmp")->dump().find(leak), std::string::npos)
          << r.dump();
    }
  }
}

// When the watchdog ends a unit, the worker's phase byte (<job>.phase) tells
// a hang of the candidate (`fail`) from the gate's own reference and checks
// outrunning problem_s (`error`, with advice), found by the sets run.
TEST(AtrexGate, WatchdogBlamesWhoeverWasWorking) {
  std::string d = tmp("gate-phase");
  // The worker writes "<key> <phase>"; "forged" writes a bare 'g', as a
  // candidate that does not know the key would.
  std::ofstream(d + "/worker.sh")
      << "#!/bin/sh\nread seed key\n"
         "if [ \"$FAKE_PHASE\" = forged ]; then printf g > \"$2.phase\"; "
         "else printf '%s %s' \"$key\" \"$FAKE_PHASE\" > \"$2.phase\"; fi\n"
         "echo \"$key \"'{\"stage\":\"correctness\"}' >&3\nexec sleep 30\n";
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  fakeCuobjdump(d);
  onePlan(d, R"("problem_s":1)");
  auto gate = [&](const char *phase) {
    fs::remove(d + "/r.jsonl");
    Out o = sh(std::string("FAKE_PHASE=") + phase + " ATREX_CUOBJDUMP=" + d +
               "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
               "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
               " --worker " + d + "/worker.sh");
    std::ifstream in(d + "/r.jsonl");
    std::string line;
    std::getline(in, line);
    return std::make_pair(o.status, Json::parse(line));
  };
  auto [st, r] = gate("g");
  EXPECT_EQ(st, 2);
  EXPECT_EQ(r.getString("status", ""), "error") << r.dump();
  EXPECT_EQ(r.getString("reason", ""),
            "correctness: hang: still running after 1 s; the watchdog killed "
            "its process group in the "
            "gate's own work (reference and checks), not the submission's: "
            "raise settings.problem_s")
      << r.dump();
  for (const char *phase : {"c", "forged"}) {
    std::tie(st, r) = gate(phase);
    EXPECT_EQ(st, 0) << phase;
    EXPECT_EQ(r.getString("status", ""), "fail") << r.dump();
    EXPECT_EQ(r.getString("reason", ""),
              "correctness: hang: still running after 1 s; the watchdog killed "
              "its process group")
        << r.dump();
  }
}

namespace {
// A scripted worker of the batch protocol (docs/gate.md, "Worker batches"):
// one seed per unit on stdin, then the key; the job's units in order, each
// with a line naming it and then its final line; a failed unit ends the
// worker. Logs "worker <run> <units>" per process and "<run> <unit>
// graphs=<option>" per unit to $FAKE_LOG. Its median follows from the unit's
// seed (the clean run reads 1 us less). FAKE_<WHAT>=<run>.<unit> picks where
// it crashes (CRASH), hangs (HANG; FAKE_HANG_GATE: in the gate's phase),
// fails (FAIL), writes an unkeyed line (FORGE) or leaves a process in a
// session of its own (ESCAPE, its pid in $FAKE_PIDFILE). Each unit writes
// tmp/u<unit>.<run>.txt in its private TMPDIR and sleeps FAKE_SLEEP seconds.
const std::string kBatchWorker = R"SH(#!/bin/sh
job=$2
run=$(sed -n 's/^ *"run": *"\([a-z]*\)".*/\1/p' "$job")
read -r line
key=${line##* }
set -- $line
tr -d ' \n' < "$job" | sed 's/{"unit":/\n/g' | sed 1d > "$job.units"
echo "worker $run $(cut -d, -f1 "$job.units" | tr '\n' ' ')" >> "$FAKE_LOG"
while IFS= read -r u || [ -n "$u" ]; do
  unit=${u%%,*}; seed=$1; shift
  graphs=$(printf '%s' "$u" | sed -n 's/.*"graphs":\([a-z]*\).*/\1/p')
  echo "$run $unit graphs=$graphs" >> "$FAKE_LOG"
  echo "$key {\"unit\":$unit,\"stage\":\"correctness\"}" >&3
  [ "$run.$unit" = "$FAKE_CRASH" ] && kill -SEGV $$
  if [ "$run.$unit" = "$FAKE_HANG" ]; then
    [ -n "$FAKE_HANG_GATE" ] && printf '%s g' "$key" > "$job.phase"
    sleep 30
  fi
  sleep "${FAKE_SLEEP:-0}"
  echo "unit $unit" > "$TMPDIR/u$unit.$run.txt"
  [ "$run.$unit" = "$FAKE_FORGE" ] && echo '{"status":"pass","stage":"done"}' >&3
  if [ "$run.$unit" = "$FAKE_ESCAPE" ]; then
    setsid sh -c 'echo $$ > "$0"; exec sleep 300' "$FAKE_PIDFILE" > /dev/null 2>&1 < /dev/null &
    while [ ! -s "$FAKE_PIDFILE" ]; do sleep 0.05; done
  fi
  if [ "$run.$unit" = "$FAKE_FAIL" ]; then
    echo "$key {\"unit\":$unit,\"status\":\"fail\",\"stage\":\"correctness\",\"reason\":\"wrong when seed $seed\"}" >&3
    exit 0
  fi
  us=$(( seed % 50 + 50 )); [ "$run" = clean ] && us=$(( us - 1 ))
  echo "$key {\"unit\":$unit,\"status\":\"pass\",\"stage\":\"done\",\"stage_seconds\":{\"setup\":0.01},\"performance\":{\"median_us\":$us,\"p10_us\":$us,\"p90_us\":$us,\"reps\":10,\"mode\":\"eager\",\"side_stream_reps\":0,\"launch_gap_hidden\":true},\"attribution\":{\"available\":true,\"verdict\":\"adopted\"}}" >&3
done < "$job.units"
)SH";

// A plan of the example submission under two names (`a` with `na` problems,
// `b` with `nb`), a fixed seed, and `settings`.
void batchPlan(const std::string &d, int na, int nb,
               const std::string &settings = "") {
  auto problems = [](int n, int t0) {
    std::string s;
    for (int i = 0; i < n; ++i)
      s += std::string(i ? "," : "") + R"({"shape":{"T":)" +
           std::to_string(t0 + i) + R"(,"D":8}})";
    return s;
  };
  std::string src = std::string(ATREX_RT_SOURCE_DIR) +
                    "/../examples/gate/silu_and_mul_naive.cu";
  std::string b = nb == 0 ? ""
                          : R"(,{"name":"b","source":")" + src +
                                R"(","operator":"silu_and_mul","problems":[)" +
                                problems(nb, 100) + "]}";
  std::ofstream(d + "/plan.json")
      << R"({"settings":{"seed":11,"read_only_view":false)" + settings +
             R"(},"submissions":[
    {"name":"a","source":")" +
             src + R"(","operator":"silu_and_mul","problems":[)" +
             problems(na, 1) + "]}" + b + "]}";
}

struct GateRunOut {
  Out out;
  std::vector<Json> results;
  std::string log;
};
GateRunOut runBatchGate(const std::string &d, const std::string &env,
                        const std::string &args = "") {
  fakeCuobjdump(d);
  std::ofstream(d + "/worker.sh") << kBatchWorker;
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  // The gate's own files exist before it runs (entries of the shared /tmp
  // that change while a unit runs are in its record too).
  fs::remove(d + "/pid");
  std::ofstream(d + "/r.jsonl", std::ios::trunc).close();
  std::ofstream(d + "/log", std::ios::trunc).close();
  GateRunOut g;
  g.out = sh("FAKE_LOG=" + d + "/log FAKE_PIDFILE=" + d +
             "/pid ATREX_CUOBJDUMP=" + d + "/cuobjdump.sh " + env + " " +
             kGate + " --quiet --plan " + d + "/plan.json --out " + d +
             "/r.jsonl --cache " + sharedCache() + " --worker " + d +
             "/worker.sh " + args);
  std::ifstream in(d + "/r.jsonl");
  for (std::string line; std::getline(in, line);)
    g.results.push_back(Json::parse(line));
  std::ifstream log(d + "/log");
  g.log.assign(std::istreambuf_iterator<char>(log), {});
  return g;
}

// The lines of the log that start with `prefix`.
std::string logLines(const std::string &log, const std::string &prefix) {
  std::istringstream in(log);
  std::string out;
  for (std::string l; std::getline(in, l);)
    if (l.rfind(prefix, 0) == 0)
      out += l + "\n";
  return out;
}
} // namespace

// One worker process runs all the problems of a submission, and one clean
// worker times all those that passed; each unit keeps a result of its own.
TEST(AtrexGate, OneWorkerRunsAllProblemsOfASubmission) {
  std::string d = tmp("gate-batch");
  batchPlan(d, 4, 2);
  GateRunOut g = runBatchGate(d, "");
  EXPECT_EQ(g.out.status, 0) << g.out.text;
  EXPECT_EQ(logLines(g.log, "worker "),
            "worker attributed 0 1 2 3 \nworker clean 0 1 2 3 \n"
            "worker attributed 4 5 \nworker clean 4 5 \n")
      << g.log;
  // The clean run's options are per unit.
  EXPECT_NE(g.log.find("clean 2 graphs=true\n"), std::string::npos) << g.log;
  ASSERT_EQ(g.results.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    const Json &r = g.results[i];
    EXPECT_EQ(validateResult(r), "") << r.dump();
    EXPECT_EQ(r.getInt("unit", -1), static_cast<int64_t>(i));
    EXPECT_EQ(r.getString("status", ""), "pass") << r.dump();
    int64_t us = static_cast<int64_t>(
        static_cast<uint64_t>(r.getInt("seed", 0)) % 50 + 50);
    // The clean median (1 us less), within the tolerance of the attributed one.
    EXPECT_EQ(r.get("performance")->getDouble("median_us", 0), us - 1)
        << r.dump();
    EXPECT_EQ(
        r.get("performance")->get("attributed")->getDouble("median_us", 0), us)
        << r.dump();
    size_t pos = i < 4 ? i : i - 4, n = i < 4 ? 4 : 2;
    const Json *b = r.get("worker_seconds")->get("attributed")->get("batch");
    ASSERT_NE(b, nullptr) << r.dump();
    EXPECT_EQ(b->getInt("units", 0), static_cast<int64_t>(n));
    EXPECT_EQ(b->getInt("position", -1), static_cast<int64_t>(pos));
    EXPECT_EQ(r.get("child")->getString("end", ""),
              pos + 1 == n ? "exited" : "continued")
        << r.dump();
    // What each unit wrote is its own.
    EXPECT_EQ(r.get("side_effects")->get("attributed")->get("files")->dump(),
              "[{\"path\":\"tmp/u" + std::to_string(i) +
                  ".attributed.txt\",\"bytes\":" +
                  std::to_string(5 + std::to_string(i).size() + 1) + "}]")
        << r.dump();
  }
}

// A crash, a failed clean run and a hang in the middle of a batch cost the
// unit they happen in; the units after it run in a fresh worker. The limit
// (problem_s) is per unit: four units of 0.4 s each in one worker pass
// under a 1 s limit.
TEST(AtrexGate, CrashOrHangMidBatchCostsOneUnit) {
  std::string d = tmp("gate-batch-crash");
  batchPlan(d, 4, 0, R"(,"problem_s":1)");
  GateRunOut g = runBatchGate(d, "FAKE_CRASH=attributed.1 FAKE_FAIL=clean.2");
  EXPECT_EQ(g.out.status, 0) << g.out.text;
  EXPECT_EQ(logLines(g.log, "worker "),
            "worker attributed 0 1 2 3 \nworker attributed 2 3 \n"
            "worker clean 0 2 3 \nworker clean 3 \n")
      << g.log;
  ASSERT_EQ(g.results.size(), 4u) << g.out.text;
  EXPECT_EQ(g.results[0].getString("status", ""), "pass");
  EXPECT_EQ(g.results[1].getString("status", ""), "fail");
  EXPECT_EQ(g.results[1].getString("reason", ""),
            "correctness: crashed: Segmentation fault (SIGSEGV)")
      << g.results[1].dump();
  EXPECT_EQ(g.results[1].get("child")->getString("end", ""), "signaled");
  EXPECT_EQ(g.results[2].getString("status", ""), "fail");
  EXPECT_EQ(g.results[2].getString("reason", ""),
            "clean timing run (no attribution): wrong when seed " +
                std::to_string(g.results[2].getInt("seed", 0)))
      << g.results[2].dump();
  EXPECT_EQ(g.results[3].getString("status", ""), "pass")
      << g.results[3].dump();

  g = runBatchGate(d, "FAKE_SLEEP=0.4 FAKE_HANG=attributed.2");
  EXPECT_EQ(g.out.status, 0) << g.out.text;
  EXPECT_EQ(logLines(g.log, "worker attributed"),
            "worker attributed 0 1 2 3 \nworker attributed 3 \n")
      << g.log;
  ASSERT_EQ(g.results.size(), 4u) << g.out.text;
  for (int i : {0, 1, 3})
    EXPECT_EQ(g.results[i].getString("status", ""), "pass")
        << g.results[i].dump();
  EXPECT_EQ(g.results[2].getString("reason", ""),
            "correctness: hang: still running after 1 s; the watchdog killed "
            "its process group")
      << g.results[2].dump();
  EXPECT_LT(g.results[2].get("child")->getDouble("wall_s", 0), 2)
      << g.results[2].dump();
  // A hang in the gate's own work (phase 'g' with the worker's key) is the
  // gate's error.
  g = runBatchGate(d, "FAKE_HANG=attributed.2 FAKE_HANG_GATE=1");
  EXPECT_EQ(g.out.status, 2) << g.out.text;
  ASSERT_EQ(g.results.size(), 4u) << g.out.text;
  EXPECT_EQ(g.results[2].getString("status", ""), "error")
      << g.results[2].dump();
  EXPECT_EQ(g.results[3].getString("status", ""), "pass")
      << g.results[3].dump();
}

// Batches give the results of one worker per unit (--worker-per-unit), unit
// for unit, with crashes, failures, forged lines and escaped processes
// among them: everything but times, run identity and how the worker ended.
TEST(AtrexGate, BatchResultsEqualTheWorkerPerUnitPath) {
  std::string d = tmp("gate-batch-equal");
  std::string env = "FAKE_CRASH=attributed.1 FAKE_FAIL=clean.2 "
                    "FAKE_FORGE=attributed.3 FAKE_ESCAPE=attributed.5 "
                    "FAKE_HANG=clean.8";
  batchPlan(d, 7, 3, R"(,"problem_s":2)");
  GateRunOut batch = runBatchGate(d, env);
  GateRunOut single = runBatchGate(d, env, "--worker-per-unit");
  EXPECT_EQ(batch.out.status, 0) << batch.out.text;
  EXPECT_EQ(single.out.status, 0) << single.out.text;
  // Ten units, one attributed worker each.
  EXPECT_EQ(logLines(single.log, "worker attributed"),
            "worker attributed 0 \nworker attributed 1 \n"
            "worker attributed 2 \nworker attributed 3 \nworker attributed 4 "
            "\nworker attributed 5 \n"
            "worker attributed 6 \nworker attributed 7 \nworker attributed 8 "
            "\nworker attributed 9 \n")
      << single.log;
  EXPECT_EQ(logLines(batch.log, "worker attributed"),
            "worker attributed 0 1 2 3 4 5 6 \nworker attributed 2 3 4 5 6 "
            "\nworker attributed 4 5 6 \n"
            "worker attributed 6 \nworker attributed 7 8 9 \n")
      << batch.log;
  // Without what differs between two runs of the same units.
  std::function<Json(const Json &)> strip = [&](const Json &j) -> Json {
    // outside_tmp: the shared /tmp, which other processes of this machine
    // change too.
    static const std::set<std::string> drop = {
        "run",   "started_at",     "duration_s",
        "child", "worker_seconds", "outside_tmp"};
    if (j.isObject()) {
      Json o = Json::object();
      for (const auto &[k, v] : j.asObject())
        if (!drop.count(k))
          o.set(k, strip(v));
      return o;
    }
    if (j.isArray()) {
      Json a = Json::array();
      for (const Json &v : j.asArray())
        a.push(strip(v));
      return a;
    }
    return j;
  };
  ASSERT_EQ(batch.results.size(), 10u) << batch.out.text;
  ASSERT_EQ(single.results.size(), 10u) << single.out.text;
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(strip(batch.results[i]).dump(), strip(single.results[i]).dump())
        << "unit " << i;
  // What each case gave (the same both ways, as compared above).
  const std::vector<Json> &r = batch.results;
  EXPECT_EQ(r[1].getString("reason", ""),
            "correctness: crashed: Segmentation fault (SIGSEGV)");
  EXPECT_EQ(r[2].getString("reason", "")
                .rfind("clean timing run (no attribution): wrong when seed", 0),
            0u);
  EXPECT_EQ(r[3].getString("reason", ""),
            "done: the submission wrote 1 line(s) to the gate's report channel "
            "(file descriptor 3): report forgery");
  EXPECT_EQ(
      r[5].getString("reason", ""),
      "done: the submission left 1 process(es) running outside the worker's "
      "process group (killed by the gate)");
  EXPECT_EQ(
      r[8].getString("reason", ""),
      "clean timing run (no attribution): correctness: hang: still running "
      "after 2 s; the watchdog killed its process group");
  for (size_t i : {0, 4, 6, 7, 9})
    EXPECT_EQ(r[i].getString("status", ""), "pass") << r[i].dump();
  std::ifstream pf(d + "/pid");
  int pid = 0;
  ASSERT_TRUE(static_cast<bool>(pf >> pid));
  EXPECT_NE(kill(pid, 0), 0)
      << "the escaped process " << pid << " is still alive";
}

// The real worker's job document and stdin: errors name what is wrong, and
// are reported for the job's first unit (the gate's own error).
TEST(AtrexGateWorker, BadJobsAreTheGatesErrors) {
  std::string d = tmp("worker-jobs");
  const std::string key =
      "0123456789abcdef0123456789abcdef"; // a report key: 32 hex digits
  auto run = [&](const std::string &job, std::string stdinText) {
    stdinText.replace(stdinText.find('K'), 1, key);
    std::ofstream(d + "/job.json") << job;
    Out o = sh("printf '" + stdinText +
               "' | " ATREX_BIN_DIR "/atrex-gate-worker --job " + d +
               "/job.json 3>&1");
    Json rep;
    std::istringstream in(o.text);
    for (std::string l; std::getline(in, l);)
      if (l.rfind(key + " {", 0) == 0)
        rep = Json::parse(l.substr(key.size() + 1));
    EXPECT_EQ(o.status, 2) << o.text;
    EXPECT_EQ(rep.getString("status", ""), "error") << o.text;
    EXPECT_EQ(rep.getString("stage", ""), "setup") << o.text;
    return rep;
  };
  std::string head =
      R"({"schema":"atrex-gate-job/2","run":"attributed","operator":"silu_and_mul",
    "library":"/nonexistent.so","own_fnv1a64":[],"settings":{},)";
  Json r = run(
      R"({"schema":"atrex-gate-job/1","units":[{"unit":4,"shape":{"T":1,"D":8}}]})",
      "1 K\n");
  EXPECT_EQ(r.getString("reason", ""),
            "job '" + d + "/job.json': not an atrex-gate-job/2 document")
      << r.dump();
  EXPECT_EQ(r.getInt("unit", -1), 4) << r.dump();
  r = run(head + R"("units":[]})", "1 K\n");
  EXPECT_EQ(r.getString("reason", ""),
            "job '" + d + "/job.json': 'units' must be a non-empty array");
  r = run(head + R"("units":[{"unit":0,"shape":{"T":1,"D":8}},{"unit":1}]})",
          "1 2 K\n");
  EXPECT_EQ(r.getString("reason", ""),
            "job '" + d +
                "/job.json': units[1]: needs 'unit' (a number) and 'shape'");
  EXPECT_EQ(r.getInt("unit", -1), 0) << r.dump();
  r = run(head + R"("units":[{"unit":0,"shape":{"T":1}}]})", "1 K\n");
  EXPECT_NE(r.getString("reason", "").find("units[0]: "), std::string::npos)
      << r.dump();
  EXPECT_NE(r.getString("reason", "").find("'D'"), std::string::npos)
      << r.dump();
  // One seed per unit, then the key.
  std::string two =
      head +
      R"("units":[{"unit":0,"shape":{"T":1,"D":8}},{"unit":1,"shape":{"T":2,"D":8}}]})";
  r = run(two, "1 K\n");
  EXPECT_EQ(r.getString("reason", ""), "stdin holds 1 seed(s) for the job's 2 "
                                       "unit(s) (one seed per unit, then the "
                                       "report key)")
      << r.dump();
  r = run(two, "1 x2 K\n");
  EXPECT_EQ(r.getString("reason", ""), "stdin: seed 1 'x2' is not a number")
      << r.dump();
}

// A gate ended by SIGTERM (a time limit, a scheduler's cancel) takes its
// worker with it: the worker runs in a process group of its own, which the
// signal to the gate does not reach.
TEST(AtrexGate, TerminatedGateTakesItsWorkerWithIt) {
  std::string d = tmp("gate-term");
  fakeCuobjdump(d);
  std::ofstream(d + "/worker.sh")
      << "#!/bin/sh\necho $$ > \"$FAKE_PIDFILE\"\nexec sleep 300\n";
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  batchPlan(d, 1, 0);
  Out o = sh("FAKE_PIDFILE=" + d + "/wpid ATREX_CUOBJDUMP=" + d +
             "/cuobjdump.sh " + kGate + " --quiet --plan " + d +
             "/plan.json --out " + d + "/r.jsonl --cache " + sharedCache() +
             " --worker " + d + "/worker.sh & g=$!; i=0; while [ ! -s " + d +
             "/wpid ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
             "kill -TERM $g; wait $g; echo rc=$?");
  EXPECT_NE(o.text.find("rc=143"), std::string::npos) << o.text;
  std::ifstream pf(d + "/wpid");
  int pid = 0;
  ASSERT_TRUE(static_cast<bool>(pf >> pid)) << o.text;
  // Gone, or a zombie of whichever process it was reparented to.
  bool alive = false;
  for (int i = 0; i < 50; ++i) {
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(st)), {});
    size_t rp = text.rfind(')');
    alive =
        rp != std::string::npos && rp + 2 < text.size() && text[rp + 2] != 'Z';
    if (!alive)
      break;
    usleep(100000);
  }
  EXPECT_FALSE(alive) << "the worker " << pid << " outlived the gate";
}

TEST(AtrexGate, HelpAndUnknownOptions) {
  Out o = sh(kGate + " --help");
  EXPECT_EQ(o.status, 0);
  for (const char *opt :
       {"--plan", "--out", "--shard", "--resume", "--jobs", "--compile-only",
        "--cache", "--worker", "--worker-per-unit", "--quiet", "--check",
        "--version", "ATREX_GATE_NO_ATTRIBUTION", "docs/gate.md"})
    EXPECT_NE(o.text.find(opt), std::string::npos) << opt;
  o = sh(kGate + " --version");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.text.rfind("atrex-gate " ATREX_RT_VERSION
                         " (commit " ATREX_RT_GIT_COMMIT ", CUDA ",
                         0),
            0u)
      << o.text;
  o = sh(kGate + " --frobnicate");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-gate: unknown option '--frobnicate'"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("atrex-gate --help"), std::string::npos) << o.text;
}

// The command lines through CLI11 (runtime/tools/Cli.h): a missing value is a
// usage error naming the option, an option's value is the next argument
// whatever it looks like, the last of a repeated option counts, stray words
// are unknown options.
TEST(AtrexGate, CommandLineAsBefore) {
  Out o = sh(kGate + " --out x.jsonl --plan");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-gate: --plan: 1 required TEXT missing"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("(atrex-gate --help for the options)"),
            std::string::npos)
      << o.text;
  std::string d = tmp("cli");
  o = sh(kGate + " --plan " + d + "/first.json --plan " + d +
         "/-second.json --out " + d + "/r.jsonl");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("cannot open '" + d + "/-second.json'"),
            std::string::npos)
      << o.text;
  o = sh(kGate + " --plan=" + d + "/eq.json --out " + d + "/r.jsonl");
  EXPECT_NE(o.text.find("cannot open '" + d + "/eq.json'"), std::string::npos)
      << o.text;
  o = sh(kGate + " --quiet plan.json");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-gate: unknown option 'plan.json'"),
            std::string::npos)
      << o.text;
  o = sh(kRef + " --op rms_norm --seed");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-ref: --seed: 1 required TEXT missing"),
            std::string::npos)
      << o.text;
  o = sh(kRef + " --op rms_norm --seed -x --shape T=1,H=8 --out " + d);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("--seed '-x' is not a non-negative integer"),
            std::string::npos)
      << o.text;
  o = sh(kRef + " --frob");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("atrex-ref: unknown argument '--frob'"),
            std::string::npos)
      << o.text;
  o = sh(ATREX_BIN_DIR "/atrex-gate-worker --bogus");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find("usage: atrex-gate-worker --job JOB.json"),
            std::string::npos)
      << o.text;
}

// `atrex-gate --check` reports each item and exits 1 when a required one is
// missing; the worker's two probes are scripted here (the real worker's run
// on this machine and on the H200 is in docs/gate.md).
TEST(AtrexGate, CheckNamesWhatIsMissing) {
  std::string d = tmp("gate-check");
  std::ofstream(d + "/worker.sh") << R"SH(#!/bin/sh
[ "$1" = --probe ] || exit 2
if [ "${ATREX_GATE_NO_ATTRIBUTION:-0}" = 1 ]; then
  echo '{"cupti":{"ok":false,"error":"cannot load CUPTI: nope","library":"x"},"cuda":true}' >&3
elif [ -n "$FAKE_NO_GPU" ]; then
  echo '{"attribution":{"ok":true,"library":"/s/libsanitizer-public.so"},"cuda":false,"cuda_error":"cudaErrorNoDevice (no CUDA-capable device is detected)"}' >&3
else
  echo '{"attribution":{"ok":true,"library":"/s/libsanitizer-public.so"},"cuda":true,"gpu":"NVIDIA H200","sm":"90","gpus":8,"cuda_driver":13000,"nvml":{"ok":true}}' >&3
fi
)SH";
  fs::permissions(d + "/worker.sh", fs::perms::owner_all);
  std::ofstream(d + "/cuobjdump") << "#!/bin/sh\n";
  fs::permissions(d + "/cuobjdump", fs::perms::owner_all);
  std::string cmd = "ATREX_CUOBJDUMP=" + d + "/cuobjdump " + kGate +
                    " --check --worker " + d + "/worker.sh";
  Out o = sh(cmd);
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(
      o.text.find(
          "ok    gpu          NVIDIA H200 (sm_90, 8 visible, driver 13000)"),
      std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("ok    attribution  Compute Sanitizer API subscribed "
                        "(/s/libsanitizer-public.so)"),
            std::string::npos)
      << o.text;
  // An optional item missing: reported, not fatal.
  EXPECT_NE(o.text.find("--    cupti        own-time share of mixed units "
                        "stays null: cannot load CUPTI: nope"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("the gate can run here"), std::string::npos) << o.text;
  o = sh("FAKE_NO_GPU=1 " + cmd);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("FAIL  gpu          no CUDA device visible to the "
                        "worker: cudaErrorNoDevice"),
            std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("the gate cannot run here: gpu"), std::string::npos)
      << o.text;
  // A worker that crashes in its probe.
  o = sh("ATREX_CUOBJDUMP=" + d + "/cuobjdump " + kGate +
         " --check --worker /bin/false");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("FAIL  gpu          the worker's probe gave no report"),
            std::string::npos)
      << o.text;
}

TEST(AtrexGate, BadPlanExitsTwo) {
  std::string d = tmp("gate-bad");
  std::ofstream(d + "/plan.json")
      << R"({"submissions":[{"source":"a.cu","operator":"rms_norm","problems":[{"shape":{"T":1}}]}]})";
  Out o = sh(kGate + " --plan " + d + "/plan.json --out " + d + "/r.jsonl");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.text.find(d + "/plan.json: submissions[0].problems[0]"),
            std::string::npos)
      << o.text;
  EXPECT_FALSE(fs::exists(d + "/r.jsonl"));
  o = sh(kGate + " --plan " + d + "/plan.json --out " + d +
         "/r.jsonl --shard 2/2");
  EXPECT_EQ(o.status, 2);
}

TEST(AtrexRef, ValidateFindsConstantOutputsAndGoesOn) {
  std::string d = tmp("ref-validate");
  {
    std::ofstream f(d + "/problems.json");
    f << R"({"problems": [
      {"id": "p1", "operator": "silu_and_mul", "shape": {"T": 3, "D": 64}},
      {"id": "p2", "operator": "topk_softmax", "shape": {"T": 16, "E": 1, "K": 1, "R": 1}},
      {"id": "p3", "operator": "nope", "shape": {"T": 1}},
      {"id": "p4", "operator": "rms_norm", "shape": {"T": 2, "H": 64}}]})";
  }
  Out o = sh(kRef + " --validate " + d + "/problems.json --seed 3");
  EXPECT_EQ(o.status, 1) << o.text;
  std::vector<Json> lines;
  std::istringstream in(o.text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() &&
        l[0] == '{') // stderr (one line per invalid problem) is mixed in
      lines.push_back(Json::parse(l));
  ASSERT_EQ(lines.size(), 4u) << o.text;
  EXPECT_NE(o.text.find("2 of 4 problems valid"), std::string::npos) << o.text;
  EXPECT_TRUE(lines[0].get("ok")->asBool()) << lines[0].dump();
  // One expert, top-1: every weight is 1 and every id 0, whatever the kernel
  // does.
  EXPECT_FALSE(lines[1].get("ok")->asBool());
  EXPECT_NE(lines[1].dump().find("a constant 'topk_weights'"),
            std::string::npos)
      << lines[1].dump();
  EXPECT_FALSE(lines[2].get("ok")->asBool());
  EXPECT_NE(lines[2].dump().find("unknown operator 'nope'"), std::string::npos)
      << lines[2].dump();
  EXPECT_TRUE(lines[3].get("ok")->asBool()) << lines[3].dump();

  o = sh(kRef + " --validate " + d + "/missing.json");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find(d + "/missing.json"), std::string::npos) << o.text;
}

TEST(AtrexRef, ValidateAcceptsDeclaredInfinitiesOnly) {
  // merge_attn_states' LSEs carry +-inf by design (an empty side): valid.
  // Regression: the suite's merge_attn_states problems were all reported
  // invalid for "non-finite values".
  std::string d = tmp("ref-validate-inf");
  std::ofstream(d + "/problems.json") << R"({"problems": [
      {"id": "p1", "operator": "merge_attn_states", "shape": {"T": 16, "Hq": 2, "D": 64}}]})";
  Out o = sh(kRef + " --validate " + d + "/problems.json --seed 1");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("\"ok\":true"), std::string::npos) << o.text;
}

TEST(AtrexRef, ValidateSamplingBatchOfTwoForEverySeed) {
  // Regression: with B = 2 the generator gave both rows top_p = 1 for a
  // fifth of the seeds (a constant input: the H200 run found two suite
  // problems invalid).
  std::string d = tmp("ref-validate-sampling");
  std::ofstream(d + "/problems.json") << R"({"problems": [
      {"id": "p1", "operator": "top_k_top_p_sampling", "shape": {"B": 2, "V": 64}}]})";
  for (int seed = 1; seed <= 12; ++seed) {
    Out o = sh(kRef + " --validate " + d + "/problems.json --seed " +
               std::to_string(seed));
    EXPECT_EQ(o.status, 0) << "seed " << seed << ": " << o.text;
  }
}

// ---- Python submissions (docs/gate.md, "Python submissions") ---------------

namespace {
std::string pythonPlanError(const std::string &submission) {
  try {
    parsePlan(Json::parse(R"({"submissions":[)" + submission + "]}"), "p.json");
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(PythonSubmission, PlanFieldsAreChecked) {
  const std::string probs = R"("problems":[{"shape":{"T":1,"H":64}}])";
  EXPECT_EQ(pythonPlanError(
                R"({"source":"a.py","operator":"rms_norm","lang":"python",)" +
                probs + "}"),
            "");
  Plan p = parsePlan(
      Json::parse(R"({"submissions":[{"source":"a.py","operator":"rms_norm",)"
                  R"("lang":"python","format":"entry",)" +
                  probs + "}]}"),
      "p.json");
  EXPECT_EQ(p.submissions[0].format, "entry");
  EXPECT_EQ(p.submissions[0].entry, "rms_norm"); // the operator's name
  p = parsePlan(
      Json::parse(R"({"submissions":[{"source":"a.py","operator":"rms_norm",)"
                  R"("lang":"python",)" +
                  probs + "}]}"),
      "p.json");
  EXPECT_EQ(p.submissions[0].format, "kernelbench");
  EXPECT_EQ(p.submissions[0].entry, "ModelNew");
  EXPECT_NE(
      pythonPlanError(
          R"({"source":"a.py","operator":"rms_norm","lang":"python","format":"triton",)" +
          probs + "}")
          .find("p.json: submissions[0].format: 'triton' is not a Python "
                "submission format"),
      std::string::npos);
  EXPECT_NE(
      pythonPlanError(
          R"({"source":"a.py","operator":"rms_norm","lang":"python","nvcc_flags":["-O3"],)" +
          probs + "}")
          .find("submissions[0].nvcc_flags: is for C++ submissions"),
      std::string::npos);
  EXPECT_NE(
      pythonPlanError(
          R"({"source":"a.cu","operator":"rms_norm","format":"gpumode",)" +
          probs + "}")
          .find("'format' and 'entry' are for lang 'python' submissions"),
      std::string::npos);
  EXPECT_NE(
      pythonPlanError(
          R"({"source":"a.py","operator":"rms_norm","lang":"python","entry":"",)" +
          probs + "}")
          .find("submissions[0].entry: must not be empty"),
      std::string::npos);
}

// The host script's formats, DLPack hand-over and own-source rules, on the
// CPU (runtime/python/test_atrex_gate_worker.py) with the interpreter whose
// torch the runtime links.
TEST(PythonSubmission, HostScriptOnTheCpu) {
  Out o =
      sh(std::string("'") + ATREX_RT_PYTHON + "' -m unittest discover -s '" +
         ATREX_RT_SOURCE_DIR + "/python' -p 'test_*.py'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("\nOK"), std::string::npos) << o.text;
}

// The gate starts the Python worker (the worker library in a Python process,
// include/atrex-rt/PythonHost.h), which reads its job and reports through the
// keyed channel like atrex-gate-worker: here with no GPU visible, its setup
// error; the staged copy of the submission is in the compile cache.
TEST(PythonSubmission, GateStartsThePythonWorker) {
  std::string d = tmp("gate-python");
  std::ofstream(d + "/sub.py")
      << "def custom_kernel(data):\n    return data[0]\n";
  std::ofstream(d + "/plan.json")
      << R"({"schema":"atrex-gate-plan/1","settings":{"problem_s":60,"read_only_view":false},
            "submissions":[{"source":"sub.py","operator":"rms_norm","lang":"python","format":"gpumode",
            "problems":[{"shape":{"T":1,"H":64}}]}]})";
  Out o = sh("CUDA_VISIBLE_DEVICES= " + kGate + " --cache " + d +
             "/cache --plan " + d + "/plan.json --out " + d + "/r.jsonl");
  std::ifstream in(d + "/r.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << o.text;
  Json r = Json::parse(line);
  EXPECT_EQ(r.getString("status", ""), "error") << line;
  EXPECT_EQ(r.getString("stage", ""), "setup") << line;
  EXPECT_EQ(r.getString("reason", ""), "no CUDA device visible to the worker")
      << line;
  EXPECT_EQ(r.get("submission")->getString("lang", ""), "python") << line;
  // Reported by the worker library itself (its stage clock), not a spawn
  // failure.
  ASSERT_NE(r.get("worker_seconds"), nullptr) << line;
  EXPECT_TRUE(r.get("worker_seconds")->get("attributed")->has("setup")) << line;
  bool staged = false;
  for (const auto &e : fs::recursive_directory_iterator(d + "/cache"))
    staged |= e.path().filename() == "submission.py";
  EXPECT_TRUE(staged);
}
