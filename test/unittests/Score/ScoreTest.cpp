//===- ScoreTest.cpp - S_i edge cases, S_agg, medians, rates, GPU choice --===//

#include "atrex/Score/Score.h"
#include "ScoreTestUtil.h"

#include "gtest/gtest.h"

using namespace atrex::score;
using namespace atrex::score::test;
using namespace llvm;

namespace {

ScoreReport scoreOne(const SubmissionSet &S, const SealedBundle &B = bundle()) {
  auto R = computeScores(B, {S}, ScoreOptions());
  EXPECT_TRUE(bool(R)) << (R ? "" : toString(R.takeError()));
  return std::move(*R);
}

const ProblemScore &byId(const SetScore &S, StringRef Id) {
  for (const ProblemScore &P : S.Problems)
    if (P.Problem->Id == Id)
      return P;
  ADD_FAILURE() << "no problem " << Id.str();
  return S.Problems.front();
}

TEST(ScoreTest, Median) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3}), 3);
  EXPECT_EQ(median({5, 1, 3}), 3);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({0, 0, 1, 1}), 0.5);
}

TEST(ScoreTest, RatioAndCap) {
  // a: 10 us roofline, 20 us measured -> 0.5. b: 20 us roofline, 18 us
  // measured (faster than the roofline, above the 16 us floor) -> 1.
  ScoreReport R = scoreOne(set("s", {passed("a", 20), passed("b", 18)}));
  const SetScore &S = R.Sets[0];
  EXPECT_DOUBLE_EQ(byId(S, "a").S, 0.5);
  EXPECT_EQ(byId(S, "a").ZeroReason, "");
  EXPECT_DOUBLE_EQ(byId(S, "b").S, 1.0);
  EXPECT_FALSE(byId(S, "b").Suspicious);
  ASSERT_TRUE(byId(S, "a").AchievedFlops.has_value());
  EXPECT_DOUBLE_EQ(*byId(S, "a").AchievedFlops,
                   R.Problems[0].Rooflines.at("H200").FlopsTotal / 20e-6);
}

TEST(ScoreTest, FailuresScoreZero) {
  ScoreReport R = scoreOne(set(
      "s",
      {result("a", "fail", "compile", "unknown", std::nullopt, std::nullopt),
       result("b", "fail", "correctness", "adopted", std::nullopt, false),
       result("c", "error", "setup", "unknown", std::nullopt, std::nullopt),
       result("d", "fail", "performance", "adopted", 6.0, true)}));
  const SetScore &S = R.Sets[0];
  EXPECT_EQ(byId(S, "a").ZeroReason, "compile");
  EXPECT_FALSE(byId(S, "a").Correct);
  EXPECT_EQ(byId(S, "b").ZeroReason, "correctness");
  EXPECT_EQ(byId(S, "c").ZeroReason, "error");
  // Correct, timed, adopted, but the gate failed it later (e.g. a re-check).
  EXPECT_EQ(byId(S, "d").ZeroReason, "failed");
  EXPECT_TRUE(byId(S, "d").Correct);
  for (const ProblemScore &P : S.Problems)
    EXPECT_EQ(P.S, 0);
  EXPECT_EQ(S.SAgg, 0);
  EXPECT_DOUBLE_EQ(S.CorrectnessRate, 0.25);
  EXPECT_EQ(S.PassRate, 0);
  EXPECT_DOUBLE_EQ(S.DynamicAdoption, 0.5);
}

TEST(ScoreTest, CorrectnessFromStageWithoutCorrectnessObject) {
  GateResult R = result("a", "pass", "done", "adopted", 20, std::nullopt);
  EXPECT_TRUE(R.correct());
  R.Stage = "correctness";
  EXPECT_FALSE(R.correct());
  R.Stage = "performance";
  EXPECT_TRUE(R.correct());
}

TEST(ScoreTest, Suspicious) {
  // a: the gate's verdict. b: 15 us is below b's 16 us datasheet floor, the
  // gate said adopted: recomputed as suspicious, also for a baseline.
  for (bool Baseline : {false, true}) {
    ScoreReport R =
        scoreOne(set("s",
                     {result("a", "fail", "performance", "suspicious", 7.0),
                      passed("b", 15.0)},
                     Baseline));
    const SetScore &S = R.Sets[0];
    EXPECT_EQ(byId(S, "a").ZeroReason, "suspicious");
    EXPECT_TRUE(byId(S, "a").Suspicious);
    EXPECT_EQ(byId(S, "b").ZeroReason, "suspicious");
    EXPECT_TRUE(byId(S, "b").Suspicious);
    EXPECT_NE(byId(S, "b").ZeroDetail.find("below the datasheet floor"),
              std::string::npos);
    EXPECT_EQ(S.Suspicious, 2u);
    EXPECT_EQ(S.SAgg, 0);
  }
}

TEST(ScoreTest, FloorFromLeastWork) {
  // With t_floor_s (the least work the gate's inputs can have) the
  // impossibility floor is it, not the datasheet time of the expected work:
  // b's floor drops from 16 us to 12 us, so 14 us is fast but possible (S
  // capped at 1) and 11 us is suspicious.
  SealedBundle B = bundle();
  B.Problems[1].Rooflines["H200"].TFloorS = 12e-6;
  ScoreReport R = scoreOne(set("s", {passed("b", 14)}), B);
  EXPECT_FALSE(byId(R.Sets[0], "b").Suspicious);
  EXPECT_DOUBLE_EQ(byId(R.Sets[0], "b").S, 1.0);
  R = scoreOne(set("s", {passed("b", 11)}), B);
  EXPECT_TRUE(byId(R.Sets[0], "b").Suspicious);
  EXPECT_EQ(byId(R.Sets[0], "b").ZeroDetail,
            "suspicious: median 11.000 us is below the datasheet floor 12.000 "
            "us");
}

TEST(ScoreTest, LatencyFloorAndTheFloorFreeScore) {
  // Problem a (10 us roofline) whose work alone takes 2 us: the latency floor
  // decides T_roofline. At 20 us S = 10/20 and the floor-free S = 2/20; S_agg
  // and its floor-free twin follow. A version-1 bundle (no nofloor value) has
  // SNoFloor == S.
  SealedBundle B = bundle();
  B.Problems[0].Rooflines["H200"].TNoFloorS = 2e-6;
  ScoreReport R = scoreOne(set("s", {passed("a", 20)}), B);
  EXPECT_DOUBLE_EQ(byId(R.Sets[0], "a").S, 0.5);
  EXPECT_DOUBLE_EQ(byId(R.Sets[0], "a").SNoFloor, 0.1);
  double W = R.Weights.at("a");
  EXPECT_DOUBLE_EQ(R.Sets[0].SAgg, W * 0.5);
  EXPECT_DOUBLE_EQ(R.Sets[0].SAggNoFloor, W * 0.1);
  R = scoreOne(set("s", {passed("a", 20)}));
  EXPECT_DOUBLE_EQ(byId(R.Sets[0], "a").SNoFloor, byId(R.Sets[0], "a").S);
}

TEST(ScoreTest, DelegationZeroedUnlessBaseline) {
  std::vector<GateResult> Rs = {
      passed("a", 20, "fallback"), passed("b", 40, "no-kernel"),
      passed("c", 80, "unknown"), passed("d", 10, "adopted")};
  ScoreReport Strict = scoreOne(set("s", Rs));
  const SetScore &S = Strict.Sets[0];
  EXPECT_EQ(byId(S, "a").ZeroReason, "verdict");
  EXPECT_EQ(byId(S, "a").ZeroDetail, "dynamic verdict fallback");
  EXPECT_EQ(byId(S, "b").ZeroReason, "verdict");
  EXPECT_EQ(byId(S, "c").ZeroReason, "verdict");
  EXPECT_DOUBLE_EQ(byId(S, "d").S, 0.5);
  EXPECT_FALSE(S.Baseline);

  ScoreReport Base = scoreOne(set("s", Rs, /*Baseline=*/true));
  const SetScore &B = Base.Sets[0];
  EXPECT_TRUE(B.Baseline);
  EXPECT_DOUBLE_EQ(byId(B, "a").S, 0.5);
  EXPECT_DOUBLE_EQ(byId(B, "b").S, 0.5);
  // unknown stays zeroed even for a baseline.
  EXPECT_EQ(byId(B, "c").ZeroReason, "verdict");
  EXPECT_DOUBLE_EQ(byId(B, "d").S, 0.5);
  // Dynamic adoption counts only adopted, whatever the mode.
  EXPECT_DOUBLE_EQ(B.DynamicAdoption, 0.25);
}

TEST(ScoreTest, MissingResultsCountZero) {
  ScoreReport R = scoreOne(set("s", {passed("a", 10)}));
  const SetScore &S = R.Sets[0];
  EXPECT_EQ(S.Missing, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(byId(S, "b").ZeroReason, "missing");
  EXPECT_FALSE(byId(S, "b").Result.has_value());
  EXPECT_EQ(S.Results, 1u);
  // Only a (weight 1/4) scores, at 1.
  EXPECT_DOUBLE_EQ(S.SAgg, 0.25);
  EXPECT_DOUBLE_EQ(S.CorrectnessRate, 0.25);
}

TEST(ScoreTest, DuplicatesTakeLatestStartedAt) {
  // The later line started earlier: the earlier line (12:00) wins over it
  // (11:00); for equal started_at the last given wins.
  ScoreReport R = scoreOne(set(
      "s",
      {result("a", "pass", "done", "adopted", 20, true, "2026-11-29T12:00:00Z"),
       result("a", "fail", "correctness", "unknown", std::nullopt, false,
              "2026-11-29T11:00:00Z"),
       result("b", "pass", "done", "adopted", 40, true, "2026-11-29T12:00:00Z"),
       result("b", "pass", "done", "adopted", 20, true,
              "2026-11-29T12:00:00Z")}));
  const SetScore &S = R.Sets[0];
  EXPECT_EQ(byId(S, "a").ResultCount, 2u);
  EXPECT_DOUBLE_EQ(byId(S, "a").S, 0.5);
  EXPECT_DOUBLE_EQ(byId(S, "b").S, 1.0);
  ASSERT_EQ(S.Warnings.size(), 2u);
  EXPECT_NE(S.Warnings[0].find("problem 'a' has 2 results; scoring the "
                               "latest by started_at (2026-11-29T12:00:00Z"),
            std::string::npos);
}

TEST(ScoreTest, UnknownIdsWarnedAndIgnored) {
  ScoreReport R =
      scoreOne(set("s", {passed("a", 10), passed("zz", 1), passed("zz", 1)}));
  const SetScore &S = R.Sets[0];
  ASSERT_EQ(S.Warnings.size(), 1u);
  EXPECT_EQ(S.Warnings[0], "2 result(s) for 'zz', which is not a problem of "
                           "the suite; ignored");
  EXPECT_EQ(S.Results, 1u);
  EXPECT_EQ(R.Warnings.size(), 1u);
  EXPECT_EQ(R.Warnings[0].rfind("set 's': ", 0), 0u);
}

TEST(ScoreTest, WeightsNormalisedOverSuiteAndPhase) {
  // Raw weights 1, 1, 1.5, 0.5 -> 0.25, 0.25, 0.375, 0.125.
  ScoreReport R = scoreOne(set("s", {passed("a", 20), passed("b", 20),
                                     passed("c", 80), passed("d", 5)}));
  EXPECT_DOUBLE_EQ(R.Weights.at("a"), 0.25);
  EXPECT_DOUBLE_EQ(R.Weights.at("c"), 0.375);
  const SetScore &S = R.Sets[0];
  // S: a 0.5, b 1, c 0.5, d 1.
  EXPECT_DOUBLE_EQ(S.SAgg, 0.25 * 0.5 + 0.25 * 1 + 0.375 * 0.5 + 0.125 * 1);
  // decode: a, d (0.25 + 0.125); prefill: b, c (0.25 + 0.375).
  EXPECT_DOUBLE_EQ(S.Phases.at("decode").WeightShare, 0.375);
  EXPECT_DOUBLE_EQ(*S.Phases.at("decode").SAgg,
                   (0.25 * 0.5 + 0.125 * 1) / 0.375);
  EXPECT_DOUBLE_EQ(*S.Phases.at("prefill").SAgg,
                   (0.25 * 1 + 0.375 * 0.5) / 0.625);
  EXPECT_DOUBLE_EQ(byId(S, "a").PhaseWeight, 0.25 / 0.375);
  // Regimes: c is the only compute-bound problem.
  EXPECT_EQ(S.Regimes.at("compute").Problems, 1u);
  EXPECT_DOUBLE_EQ(S.Regimes.at("compute").WeightShare, 0.375);
  EXPECT_DOUBLE_EQ(*S.Regimes.at("compute").SAgg, 0.5);
  EXPECT_DOUBLE_EQ(*S.Regimes.at("memory").SAgg,
                   (0.25 * 0.5 + 0.25 + 0.125) / 0.625);
}

TEST(ScoreTest, ProblemWithoutWeightAndEmptyPart) {
  SealedBundle B = bundle();
  B.Weights.erase("a");
  B.Weights.erase("d"); // the decode phase now weighs nothing
  ScoreReport R = scoreOne(set("s", {passed("a", 10), passed("b", 20)}), B);
  EXPECT_EQ(R.Weights.at("a"), 0);
  EXPECT_DOUBLE_EQ(R.Weights.at("b"), 0.4);
  const SetScore &S = R.Sets[0];
  EXPECT_FALSE(S.Phases.at("decode").SAgg.has_value());
  EXPECT_DOUBLE_EQ(S.SAgg, 0.4);
  B.Weights.clear();
  auto Bad = computeScores(B, {set("s", {})}, ScoreOptions());
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "the weights of the suite's problems sum to 0");
}

TEST(ScoreTest, PerOperatorMedianAndPassRate) {
  // rms_norm: a 0.5, b 0 (fallback) -> median 0.25. gemm_bf16: c 0.5,
  // d missing -> median 0.25; pass rate 1/2.
  ScoreReport R = scoreOne(set(
      "s", {passed("a", 20), passed("b", 20, "fallback"), passed("c", 80)}));
  const SetScore &S = R.Sets[0];
  ASSERT_EQ(S.Operators.size(), 2u);
  const OperatorScore &Gemm = S.Operators[0], &Norm = S.Operators[1];
  EXPECT_EQ(Gemm.Operator, "gemm_bf16");
  EXPECT_EQ(Norm.Operator, "rms_norm");
  EXPECT_DOUBLE_EQ(Norm.MedianS, 0.25);
  EXPECT_DOUBLE_EQ(Norm.passRate(), 1.0);
  EXPECT_EQ(Norm.Adopted, 1u);
  EXPECT_DOUBLE_EQ(Gemm.MedianS, 0.25);
  EXPECT_DOUBLE_EQ(Gemm.passRate(), 0.5);
  EXPECT_DOUBLE_EQ(Gemm.WeightShare, 0.5);
  EXPECT_DOUBLE_EQ(*Gemm.SAgg, 0.375 * 0.5 / 0.5);
}

TEST(ScoreTest, StaticAdoptionFromLint) {
  SubmissionSet S = set("s", {passed("a", 20), passed("c", 80)});
  S.Results[0].Source = "sets/rms.cu";
  S.Results[1].Source = "sets/gemm.cu";
  S.Lint = std::vector<LintSubmission>{
      {"/abs/sets/rms.cu", {"/abs/sets/rms.cu"}, "adopted", {"rms_norm"}},
      {"gemm.cu", {"/x/gemm.cu"}, "fallback", {"gemm_bf16"}}};
  S.LintFile = "lint.json";
  ScoreReport R = scoreOne(S);
  const SetScore &Sc = R.Sets[0];
  EXPECT_EQ(byId(Sc, "a").StaticVerdict, "adopted");
  EXPECT_EQ(byId(Sc, "c").StaticVerdict, "fallback");
  EXPECT_DOUBLE_EQ(*Sc.StaticAdoption, 0.25);
  EXPECT_DOUBLE_EQ(Sc.DynamicAdoption, 0.5);
  EXPECT_DOUBLE_EQ(*Sc.BothAdoption, 0.25);
  // Without a lint report the static rates are unknown, not 0.
  ScoreReport NoLint = scoreOne(set("s", {passed("a", 20)}));
  EXPECT_FALSE(NoLint.Sets[0].StaticAdoption.has_value());
  EXPECT_FALSE(NoLint.Sets[0].BothAdoption.has_value());
}

TEST(ScoreTest, GpuSelection) {
  SealedBundle B = bundle();
  Hardware H20 = h200();
  H20.Name = "H20";
  B.Gpus["H20"] = H20;
  std::string By;
  // "NVIDIA H200" names H200 (a word), not H20 (a prefix of it).
  auto G = selectGpu(B, {set("s", {passed("a", 10)})}, "", &By);
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(*G, "H200");
  EXPECT_EQ(By, "results");
  EXPECT_TRUE(gpuMatches("NVIDIA H200", "H200"));
  EXPECT_FALSE(gpuMatches("NVIDIA H200", "H20"));
  EXPECT_TRUE(gpuMatches("AMD Instinct MI300X", "mi300x"));
  // --gpu, case-insensitive; unknown names list the entries.
  G = selectGpu(B, {}, "h20", &By);
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(*G, "H20");
  EXPECT_EQ(By, "option");
  G = selectGpu(B, {}, "B200");
  ASSERT_FALSE(bool(G));
  EXPECT_EQ(
      toString(G.takeError()),
      "no hardware entry 'B200' in the sealed bundle (it has: H20, H200)");
  // Results from two GPUs of the bundle.
  GateResult Other = passed("b", 10);
  Other.Gpu = "NVIDIA H20";
  G = selectGpu(B, {set("s", {passed("a", 10), Other})}, "");
  ASSERT_FALSE(bool(G));
  EXPECT_EQ(toString(G.takeError()),
            "the results ran on several GPUs of the sealed bundle (H20, "
            "H200); choose one with --gpu");
  // No GPU named and several entries.
  GateResult NoGpu = passed("a", 10);
  NoGpu.Gpu = "";
  G = selectGpu(B, {set("s", {NoGpu})}, "");
  ASSERT_FALSE(bool(G));
  // One entry: it is used.
  G = selectGpu(bundle(), {set("s", {NoGpu})}, "", &By);
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(By, "only-entry");
}

TEST(ScoreTest, MissingRooflineForGpu) {
  SealedBundle B = bundle();
  B.Problems[2].Rooflines.clear();
  auto R = computeScores(B, {set("s", {})}, ScoreOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()), "problem 'c' has no roofline for H200");
}

TEST(ScoreTest, DuplicateSetNames) {
  auto R =
      computeScores(bundle(), {set("s", {}), set("s", {})}, ScoreOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()), "submission set 's' is given twice");
}

} // namespace
