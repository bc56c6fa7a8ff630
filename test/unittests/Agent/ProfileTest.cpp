//===- ProfileTest.cpp - ncu's CSV, the own-kernel rule, the classifier ---===//
//
// Part of atrex. The profile's units (lib/Agent/Profile.cpp, docs/agent.md,
// "Profiling and diagnosis") without a GPU or ncu: raw CSV pages written by
// hand, profiles and problems built by hand. Each classification test holds
// one rule of the documented order and thresholds: reordering the classes or
// moving a threshold fails one of them.
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Profile.h"
#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Loop.h"

#include "gtest/gtest.h"

#include <set>

using namespace llvm;
using namespace atrex::agent;
namespace protocol = atrex::rt::protocol;

namespace {

template <typename T> bool ok(Expected<T> &E) {
  if (E)
    return true;
  ADD_FAILURE() << toString(E.takeError());
  return false;
}
template <typename T> std::string errorOf(Expected<T> E) {
  if (E)
    return "";
  return toString(E.takeError());
}

const char *kHead = "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\","
                    "\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
                    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
                    "\"device__attribute_display_name\"\n";

TEST(NcuCsv, QuotedFieldsUnitsAndMissingValues) {
  std::string Text = std::string("==PROF== Connected to process 7\n") + kHead +
                     "\"\",\"\",\"\",\"\",\"usecond\",\"Mbyte\",\"%\",\"\"\n"
                     "\"0\",\"7\",\"k(float *, \"\"x\"\")\",\"(256, 1, 1)\","
                     "\"1,024.5\",\"2\",\"n/a\",\"NVIDIA H200\"\n"
                     "some output of the application\n";
  auto L = parseNcuCsv(Text, "t.csv");
  ASSERT_TRUE(ok(L));
  ASSERT_EQ(L->size(), 1u);
  const NcuLaunch &R = (*L)[0];
  EXPECT_EQ(R.Line, 4u);
  EXPECT_EQ(R.Kernel, "k(float *, \"x\")");
  EXPECT_EQ(R.BlockSize, "(256, 1, 1)");
  EXPECT_DOUBLE_EQ(R.Metrics.at("gpu__time_duration.sum"), 1024.5e-6);
  EXPECT_DOUBLE_EQ(R.Metrics.at("dram__bytes_read.sum"), 2e6);
  EXPECT_EQ(R.Metrics.count("sm__throughput.avg.pct_of_peak_sustained_"
                            "elapsed"),
            0u);                                                    // n/a
  EXPECT_EQ(R.Metrics.count("device__attribute_display_name"), 0u); // text
}

TEST(NcuCsv, SeveralProcessesEachWithItsHeader) {
  std::string Block = std::string(kHead) +
                      "\"\",\"\",\"\",\"\",\"nsecond\",\"byte\",\"%\",\"\"\n"
                      "\"0\",\"1\",\"a\",\"\",\"100\",\"10\",\"50\",\"\"\n";
  auto L = parseNcuCsv(Block + "==PROF== Disconnected\n" + Block, "t.csv");
  ASSERT_TRUE(ok(L));
  ASSERT_EQ(L->size(), 2u);
  EXPECT_EQ((*L)[1].Line, 7u);
  EXPECT_DOUBLE_EQ((*L)[1].Metrics.at("gpu__time_duration.sum"), 100e-9);
}

TEST(NcuCsv, MalformedInputNamesFileAndLine) {
  EXPECT_EQ(errorOf(parseNcuCsv(std::string(kHead) + "\"0\",\"1\"\n", "x.csv")),
            "x.csv:2: 2 fields, the header (line 1) has 8");
  EXPECT_EQ(errorOf(parseNcuCsv("\"0\",\"1\",\"k\"\n", "x.csv")),
            "x.csv:1: a CSV row before ncu's header (\"ID\",...,\"Kernel "
            "Name\",...)");
  EXPECT_EQ(errorOf(parseNcuCsv(std::string(kHead) +
                                    "\"0\",\"1\",\"k\",\"\",\"12\",\"3\","
                                    "\"4\n",
                                "x.csv")),
            "x.csv:2: unterminated quoted field");
  EXPECT_EQ(errorOf(parseNcuCsv(
                std::string(kHead) +
                    "\"0\",\"1\",\"k\",\"\",\"fast\",\"3\",\"4\",\"\"\n",
                "x.csv")),
            "x.csv:2: column 'gpu__time_duration.sum': 'fast' is not a number");
  EXPECT_EQ(errorOf(parseNcuCsv("\"ID\",\"Name\"\n", "x.csv")),
            "x.csv:1: ncu's header has no 'Kernel Name' column");
}

TEST(NcuCsv, LaunchesAggregatePerKernel) {
  std::vector<NcuLaunch> L(3);
  L[0].Kernel = L[2].Kernel = "a";
  L[1].Kernel = "b";
  L[0].Metrics = {{"gpu__time_duration.sum", 1e-6},
                  {"dram__bytes_read.sum", 100},
                  {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 10}};
  L[2].Metrics = {{"gpu__time_duration.sum", 3e-6},
                  {"dram__bytes_read.sum", 300},
                  {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 50}};
  L[1].Metrics = {{"gpu__time_duration.sum", 5e-6}};
  std::vector<KernelMetrics> K = aggregateLaunches(L);
  ASSERT_EQ(K.size(), 2u);
  EXPECT_EQ(K[0].Name, "a");
  EXPECT_EQ(K[0].Launches, 2u);
  EXPECT_DOUBLE_EQ(*K[0].get("gpu__time_duration.sum"), 4e-6); // summed
  EXPECT_DOUBLE_EQ(*K[0].get("dram__bytes_read.sum"), 400);
  // Weighted by duration: (10 x 1 + 50 x 3) / 4.
  EXPECT_DOUBLE_EQ(
      *K[0].get("dram__throughput.avg.pct_of_peak_sustained_elapsed"), 40);
  EXPECT_EQ(K[1].Launches, 1u);
}

TEST(OwnKernels, AttributionFirstThenTheSource) {
  std::string Rule;
  std::string Line =
      R"({"attribution":{"kernels":[)"
      R"({"name":"_ZN2at6native4fill","own":false,"region":"correctness"},)"
      R"({"name":"_Z3twov","own":true,"region":"correctness"},)"
      R"({"name":"_Z3onev","own":true,"region":"timed"},)"
      R"({"name":"_Z3twov","own":true,"region":"timed"}]}})";
  EXPECT_EQ(ownKernelNames(Line, "__global__ void src() {}", Rule),
            (std::vector<std::string>{"_Z3onev", "_Z3twov"}));
  EXPECT_EQ(Rule, ownrule::kAttribution);
  std::string Source = "template <int N>\n__global__ void "
                       "__launch_bounds__(256, 2) tiled(float *x) {}\n"
                       "static __global__ void plain (int n);\n"
                       "__host__ __device__ int helper(int);\n";
  EXPECT_EQ(
      ownKernelNames(R"({"attribution":{"available":false}})", Source, Rule),
      (std::vector<std::string>{"tiled", "plain"}));
  EXPECT_EQ(Rule, ownrule::kSource);
  EXPECT_TRUE(ownKernelNames("", "void host() {}", Rule).empty());
  EXPECT_EQ(Rule, "");
}

/// A problem like the suite's on the H200 (measured ceilings: 4.25 TB/s,
/// 703.2 bf16 matrix TFLOP/s, 52.1 fp32 TFLOP/s, 3.65 us floor).
Problem problem(double Flops, double MatrixFlops, double Bytes) {
  Problem P;
  P.Id = "p0001";
  P.Gpu = "H200";
  P.Ceiling = "measured";
  P.Flops = Flops;
  P.MatrixFlops = MatrixFlops;
  P.Bytes = Bytes;
  P.TMemoryS = Bytes / 4.25e12;
  P.TComputeS = MatrixFlops > 0 ? Flops / 703.2e12 : Flops / 52.1e12;
  P.TFloorS = 3.65e-6;
  P.TRooflineS = std::max({P.TMemoryS, P.TComputeS, P.TFloorS});
  P.Regime = P.TMemoryS >= P.TComputeS ? "memory" : "compute";
  return P;
}

/// One own kernel launched \p Launches times, \p Seconds per launch.
Profile profile(double Seconds, std::map<std::string, double> Metrics,
                unsigned Launches = 4) {
  KernelMetrics K;
  K.Name = "_Z1kv";
  K.Launches = Launches;
  K.Metrics = std::move(Metrics);
  K.Metrics["gpu__time_duration.sum"] = Seconds * Launches;
  Profile P;
  P.Kernels.push_back(std::move(K));
  return P;
}

const char *kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char *kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char *kLong =
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
const char *kBarrier =
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio";
const char *kHmma =
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";

bool suggests(const Diagnosis &D, StringRef Text) {
  return any_of(D.Suggestions, [&](const std::string &S) {
    return StringRef(S).contains(Text);
  });
}

TEST(Diagnose, MemoryBandwidthNearPeakAndItsThreshold) {
  Problem P = problem(1e8, 0, 500e6); // 117.6 us of memory
  double Bytes = 500e6;
  Diagnosis D = diagnose(
      P,
      profile(125e-6,
              {{kDram, 85}, {kSm, 20}, {"dram__bytes_read.sum", 4 * Bytes}}),
      std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kMemoryBandwidth);
  EXPECT_TRUE(D.NearRoofline); // 117.6 / 125 = 0.94
  EXPECT_TRUE(suggests(D, "DRAM is near its peak"));
  EXPECT_TRUE(is_contained(D.KbTerms, "memory-bound"));
  EXPECT_NEAR(*D.M.DramTbps, 4.0, 1e-9);
  EXPECT_NEAR(*D.M.PeakTbps, 4.25, 1e-9);
  // Below 60% of both ncu's peak and the ceiling: not bandwidth-bound.
  Diagnosis Below =
      diagnose(P, profile(400e-6, {{kDram, 59.9}, {kSm, 10}, {kLong, 20}}),
               std::nullopt);
  EXPECT_EQ(Below.Bottleneck, bottleneck::kMemoryLatency);
  Diagnosis At =
      diagnose(P, profile(400e-6, {{kDram, 60}, {kSm, 10}}), std::nullopt);
  EXPECT_EQ(At.Bottleneck, bottleneck::kMemoryBandwidth);
  EXPECT_FALSE(suggests(At, "near its peak"));
  EXPECT_TRUE(suggests(At, "more bytes in flight"));
}

TEST(Diagnose, ExcessBytesAndNarrowLoads) {
  Problem P = problem(1e8, 0, 500e6);
  Diagnosis D = diagnose(
      P,
      profile(200e-6,
              {{kDram, 75},
               {"dram__bytes_read.sum", 4 * 800e6},
               {"l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", 4 * 800e6},
               {"smsp__sass_inst_executed_op_global_ld.sum", 4 * 800e6 / 128}}),
      std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kMemoryBandwidth);
  EXPECT_TRUE(suggests(D, "cut DRAM traffic: 1.60x the semantic bytes"));
  EXPECT_TRUE(suggests(D, "vectorise global loads to 128-bit (now 4.0 bytes"));
}

TEST(Diagnose, LatencyBoundWithItsOccupancyLimiter) {
  Problem P = problem(1e8, 0, 500e6);
  Diagnosis D = diagnose(
      P,
      profile(900e-6, {{kDram, 12},
                       {kSm, 8},
                       {kLong, 40},
                       {kBarrier, 2},
                       {"sm__maximum_warps_per_active_cycle_pct", 12.5},
                       {"launch__occupancy_limit_registers", 1},
                       {"launch__occupancy_limit_shared_mem", 32},
                       {"launch__occupancy_limit_blocks", 32},
                       {"launch__occupancy_limit_warps", 8},
                       {"launch__registers_per_thread", 168},
                       {"launch__waves_per_multiprocessor", 0.5}}),
      std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kMemoryLatency);
  EXPECT_EQ(D.M.OccupancyLimiter, "registers");
  EXPECT_EQ(*D.M.BlocksPerSm, 1);
  ASSERT_FALSE(D.Suggestions.empty());
  EXPECT_EQ(D.Suggestions[0],
            "raise occupancy: registers limit to 1 blocks/SM (168 "
            "registers/thread): __launch_bounds__(threads, minBlocks) or "
            "fewer live values");
  EXPECT_TRUE(suggests(D, "more CTAs: the grid fills 0.50 of a wave"));
  EXPECT_TRUE(is_contained(D.KbTerms, "__launch_bounds__"));
  EXPECT_TRUE(is_contained(D.KbTerms, "long scoreboard"));
  // A barrier-bound kernel is latency-bound, not memory-latency-bound.
  Diagnosis B = diagnose(
      P, profile(900e-6, {{kDram, 12}, {kSm, 8}, {kLong, 1}, {kBarrier, 9}}),
      std::nullopt);
  EXPECT_EQ(B.Bottleneck, bottleneck::kLatency);
  EXPECT_TRUE(suggests(B, "warp shuffles"));
  // Full theoretical occupancy: no occupancy advice.
  Diagnosis F =
      diagnose(P,
               profile(900e-6, {{kDram, 12},
                                {kSm, 8},
                                {kLong, 40},
                                {"sm__maximum_warps_per_active_cycle_pct", 100},
                                {"launch__occupancy_limit_registers", 8},
                                {"launch__occupancy_limit_warps", 8}}),
               std::nullopt);
  EXPECT_FALSE(suggests(F, "raise occupancy"));
  EXPECT_EQ(F.M.OccupancyLimiter, "warps"); // a tie names the block size
}

TEST(Diagnose, TensorCoresOnlyForMatrixWorkInTheComputeRegime) {
  Problem Gemm = problem(68.7e9, 68.7e9, 67e6); // compute: 97.7 us
  Profile Simt = profile(1.9e-3, {{kDram, 5}, {kSm, 72}, {kHmma, 0}});
  Diagnosis D = diagnose(Gemm, Simt, std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kTensorCores);
  EXPECT_EQ(D.Secondary, std::vector<std::string>{bottleneck::kCompute});
  EXPECT_TRUE(suggests(D, "use tensor cores"));
  EXPECT_TRUE(is_contained(D.KbTerms, "wmma"));
  // Tensor pipe busy: compute-bound, no tensor-core advice.
  Diagnosis Busy =
      diagnose(Gemm, profile(140e-6, {{kDram, 30}, {kSm, 85}, {kHmma, 70}}),
               std::nullopt);
  EXPECT_EQ(Busy.Bottleneck, bottleneck::kCompute);
  EXPECT_FALSE(suggests(Busy, "use tensor cores"));
  // The metric missing is no evidence of an idle pipe.
  Diagnosis Unknown =
      diagnose(Gemm, profile(1.9e-3, {{kDram, 5}, {kSm, 72}}), std::nullopt);
  EXPECT_EQ(Unknown.Bottleneck, bottleneck::kCompute);
  // A memory-bound problem with matrix FLOPs (a decode GEMV): no.
  Problem Gemv = problem(2 * 4096.0 * 4096, 2 * 4096.0 * 4096, 33.6e6);
  EXPECT_EQ(Gemv.Regime, "memory");
  Diagnosis V = diagnose(
      Gemv, profile(40e-6, {{kDram, 20}, {kSm, 10}, {kHmma, 0}, {kLong, 9}}),
      std::nullopt);
  EXPECT_EQ(V.Bottleneck, bottleneck::kMemoryLatency);
}

TEST(Diagnose, LaunchLatencyNearTheFloor) {
  Problem P = problem(1e6, 0, 1e6); // floor-bound: 3.65 us
  Diagnosis D =
      diagnose(P, profile(4.1e-6, {{kDram, 5}, {kSm, 3}}), std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kLaunchLatency);
  EXPECT_TRUE(suggests(D, "against a latency floor of 3.65 us"));
  // 3 x the floor is no longer tiny.
  Diagnosis Slow = diagnose(
      P, profile(11e-6, {{kDram, 5}, {kSm, 3}, {kLong, 5}}), std::nullopt);
  EXPECT_EQ(Slow.Bottleneck, bottleneck::kMemoryLatency);
}

TEST(Diagnose, TooManyKernelsWhenTheGateSeesGaps) {
  Problem P = problem(1e8, 0, 200e6);
  Profile Two = profile(30e-6, {{kDram, 70}, {kSm, 20}});
  KernelMetrics Second = Two.Kernels[0];
  Second.Name = "_Z1jv";
  Second.Launches = 8; // twice per call
  Second.Metrics["gpu__time_duration.sum"] = 8 * 20e-6;
  Two.Kernels.push_back(Second);
  // Kernels: 30 + 2 x 20 = 70 us per call; the gate: 100 us.
  Diagnosis D = diagnose(P, Two, 100.0);
  EXPECT_NEAR(*D.M.TimePerCallS, 70e-6, 1e-12);
  EXPECT_NEAR(*D.M.KernelsPerCall, 3, 1e-12);
  EXPECT_EQ(D.Bottleneck, bottleneck::kTooManyKernels);
  EXPECT_TRUE(suggests(D, "fuse the kernels: 3.0 per call"));
  // Without the gate's median (or without the gap) they are a suggestion.
  Diagnosis NoGap = diagnose(P, Two, 80.0);
  EXPECT_EQ(NoGap.Bottleneck, bottleneck::kMemoryBandwidth);
  EXPECT_TRUE(suggests(NoGap, "fuse the kernels"));
}

TEST(Diagnose, NothingMeasuredIsUnclassified) {
  Diagnosis D = diagnose(problem(1e8, 0, 1e8), profile(1e-3, {}), std::nullopt);
  EXPECT_EQ(D.Bottleneck, bottleneck::kUnclassified);
}

TEST(Diagnose, JsonRoundTrip) {
  Problem P = problem(1e8, 0, 500e6);
  Profile Prof = profile(900e-6, {{kDram, 12}, {kSm, 8}, {kLong, 40}});
  Prof.OwnRule = ownrule::kAttribution;
  Prof.OwnNames = {"_Z1kv"};
  Prof.Ignored = {"_ZN2at4fill"};
  Diagnosis D = diagnose(P, Prof, 950.0);
  auto D2 = diagnosisFromJSON(toJSON(D));
  ASSERT_TRUE(ok(D2));
  EXPECT_EQ(D2->Bottleneck, D.Bottleneck);
  EXPECT_EQ(D2->Summary, D.Summary);
  EXPECT_EQ(D2->Evidence, D.Evidence);
  EXPECT_EQ(D2->Suggestions, D.Suggestions);
  EXPECT_FALSE(D.Directions.empty());
  EXPECT_EQ(D2->Directions, D.Directions);
  EXPECT_EQ(D2->KbTerms, D.KbTerms);
  EXPECT_EQ(D2->query(), D.query());
  EXPECT_NEAR(*D2->M.TimePerCallS, *D.M.TimePerCallS, 1e-15);
  EXPECT_EQ(D2->M.Stalls, D.M.Stalls);
  auto P2 = profileFromJSON(toJSON(Prof));
  ASSERT_TRUE(ok(P2));
  EXPECT_EQ(P2->OwnRule, Prof.OwnRule);
  EXPECT_EQ(P2->Ignored, Prof.Ignored);
  ASSERT_EQ(P2->Kernels.size(), 1u);
  EXPECT_EQ(P2->Kernels[0].Metrics, Prof.Kernels[0].Metrics);
  EXPECT_EQ(errorOf(diagnosisFromJSON(json::Object{})),
            "not an atrex-agent-diagnosis/1 object");
}

TEST(Diagnose, LoopStateCarriesTheProfileToHistoryAndBest) {
  LoopState St;
  Evaluation E;
  E.LintVerdict = E.GateVerdict = protocol::kAdopted;
  E.Measured = true;
  E.GateStatus = protocol::kPass;
  E.MedianUs = 10;
  E.S = 0.5;
  Kernel K;
  K.Hash = "h0";
  Outcome Out = St.decide(E, LoopOptions());
  St.recordEvaluated(0, K, E, Out);
  St.recordProfile(0, json::Object{{"bottleneck", "compute"}}, "");
  ASSERT_TRUE(St.History.back().Profile.has_value());
  EXPECT_EQ(St.Best.Profile->getString("bottleneck"), "compute");
  // A rejected iteration's profile stays in its history entry.
  E.S = 0.1;
  K.Hash = "h1";
  St.recordEvaluated(1, K, E, St.decide(E, LoopOptions()));
  St.recordProfile(1, std::nullopt, "ncu not found");
  EXPECT_EQ(St.History.back().ProfileError, "ncu not found");
  EXPECT_EQ(St.Best.Iteration, 0u);
  EXPECT_TRUE(St.Best.ProfileError.empty());
  EXPECT_TRUE(St.Best.Profile.has_value());
}

} // namespace

// Every direction a diagnosis names is one of Directions.def, each once, and
// a suggestion with a direction adds it in the suggestions' order.
TEST(Diagnose, DirectionsAreRegisteredAndInOrder) {
  for (StringRef N : direction::all())
    EXPECT_FALSE(direction::summary(N).empty()) << N.str();
  EXPECT_FALSE(direction::isKnown("wider-load"));
  Problem P = problem(1e8, 0, 500e6);
  Profile Prof = profile(900e-6, {{kDram, 12}, {kSm, 8}, {kLong, 40}});
  Diagnosis D = diagnose(P, Prof, 950.0);
  EXPECT_FALSE(D.Directions.empty());
  std::set<std::string> Seen;
  for (const std::string &Dn : D.Directions) {
    EXPECT_TRUE(direction::isKnown(Dn)) << Dn;
    EXPECT_TRUE(Seen.insert(Dn).second) << Dn << " twice";
  }
  EXPECT_LE(D.Directions.size(), D.Suggestions.size());
}
