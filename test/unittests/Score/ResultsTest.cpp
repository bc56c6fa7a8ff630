//===- ResultsTest.cpp - gate result lines, lint reports, lint matching ---===//

#include "atrex/Score/Results.h"

#include "gtest/gtest.h"

using namespace atrex::score;
using namespace llvm;

namespace {

const char *const Line =
    R"({"schema": "atrex-gate-result/1", "unit": 0,
        "submission": {"name": "rms", "source": "sets/rms.cu", "operator": "rms_norm", "lang": "cuda"},
        "problem": {"id": "p1", "operator": "rms_norm", "shape": {}},
        "started_at": "2026-11-29T12:00:00Z", "env": {"gpu": "NVIDIA H200"},
        "status": "pass", "stage": "done", "verdict": "adopted",
        "correctness": {"ok": true}, "performance": {"median_us": 12.5}})";

std::string oneLine(StringRef S) {
  std::string Out;
  for (char C : S)
    if (C != '\n')
      Out += C;
  return Out;
}

TEST(ResultsTest, ParseLine) {
  auto R = parseResultLine(Line);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->ProblemId, "p1");
  EXPECT_EQ(R->SubmissionName, "rms");
  EXPECT_EQ(R->Source, "sets/rms.cu");
  EXPECT_EQ(R->Status, "pass");
  EXPECT_EQ(R->Verdict, "adopted");
  EXPECT_EQ(R->Gpu, "NVIDIA H200");
  EXPECT_EQ(R->StartedAt, "2026-11-29T12:00:00Z");
  ASSERT_TRUE(R->MedianUs.has_value());
  EXPECT_DOUBLE_EQ(*R->MedianUs, 12.5);
  EXPECT_TRUE(R->correct());
}

TEST(ResultsTest, LineErrors) {
  auto Err = [](StringRef Text) {
    auto R = parseResultLine(Text);
    EXPECT_FALSE(bool(R));
    return R ? std::string() : toString(R.takeError());
  };
  EXPECT_EQ(Err(R"({"problem": {"id": "p1"}, "status": "pass"})"),
            "missing \"schema\" (expected \"atrex-gate-result/1\")");
  EXPECT_EQ(
      Err(R"({"schema": "atrex-gate-result/2"})"),
      "schema is \"atrex-gate-result/2\", expected \"atrex-gate-result/1\"");
  EXPECT_EQ(Err(R"({"schema": "atrex-gate-result/1", "status": "pass"})"),
            "missing \"problem\" object");
  EXPECT_EQ(
      Err(R"({"schema": "atrex-gate-result/1", "problem": {"id": "p"}, "status": "ok"})"),
      "\"status\" must be \"pass\", \"fail\" or \"error\"");
  EXPECT_EQ(
      Err(R"({"schema": "atrex-gate-result/1", "unit": 0, "submission": {"name": "s"}, "stage": "done", "problem": {"id": "p"}, "status": "pass", "performance": {"median_us": 1}, "verdict": "great"})"),
      "unknown verdict \"great\"");
  EXPECT_EQ(
      Err(R"({"schema": "atrex-gate-result/1", "unit": 0, "submission": {"name": "s"}, "stage": "done", "verdict": "adopted", "problem": {"id": "p"}, "status": "pass", "performance": {"median_us": -1}})"),
      "\"performance.median_us\" is not a positive number");
  // The rules of docs/formats/gate-result.schema.json that the gate's
  // validator enforces too (test/score/result-schema.test checks the schema).
  const std::string Head =
      R"({"schema": "atrex-gate-result/1", "problem": {"id": "p"}, )";
  EXPECT_EQ(
      Err(Head +
          R"("status": "pass", "submission": {}, "stage": "done", "verdict": "adopted"})"),
      "missing \"unit\"");
  EXPECT_EQ(
      Err(Head +
          R"("unit": 0, "submission": {}, "status": "fail", "stage": "linking", "verdict": "unknown", "reason": "r"})"),
      "unknown stage \"linking\"");
  EXPECT_EQ(
      Err(Head +
          R"("unit": 0, "submission": {}, "status": "fail", "stage": "compile", "verdict": "unknown"})"),
      "a result with status \"fail\" needs a \"reason\"");
  EXPECT_EQ(
      Err(Head +
          R"("unit": 0, "submission": {}, "status": "pass", "stage": "done", "verdict": "adopted"})"),
      "a passing result needs \"performance.median_us\"");
  EXPECT_EQ(Err("[1]"), "not a JSON object");
  EXPECT_EQ(Err("{").rfind("invalid JSON: ", 0), 0u);
}

TEST(ResultsTest, OptionalFields) {
  // A compile failure: no correctness, no performance; a null median is no
  // median.
  auto R = parseResultLine(
      R"({"schema": "atrex-gate-result/1", "unit": 0, "submission": {"name": "s"}, "problem": {"id": "p"},
          "status": "fail", "stage": "compile", "verdict": "unknown", "reason": "nvcc failed",
          "performance": {"median_us": null}})");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Verdict, "unknown");
  EXPECT_FALSE(R->MedianUs.has_value());
  EXPECT_FALSE(R->CorrectnessOk.has_value());
  EXPECT_FALSE(R->correct());
  EXPECT_EQ(R->Reason, "nvcc failed");
}

TEST(ResultsTest, MalformedLineKeepsTheOthers) {
  std::string Text = oneLine(Line) +
                     "\n\n{\"schema\": \"atrex-gate-result/1\", \n" +
                     oneLine(Line) + "\r\n";
  ResultsFile F = parseResults("r.jsonl", Text);
  ASSERT_EQ(F.Results.size(), 2u);
  EXPECT_EQ(F.Results[0].Line, 1u);
  EXPECT_EQ(F.Results[1].Line, 4u);
  EXPECT_EQ(F.Results[1].File, "r.jsonl");
  ASSERT_EQ(F.Errors.size(), 1u);
  EXPECT_EQ(F.Errors[0].rfind("r.jsonl:3: invalid JSON: ", 0), 0u)
      << F.Errors[0];
}

TEST(ResultsTest, LoadMissingFile) {
  auto F = loadResults("/nonexistent/atrex/results.jsonl");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(toString(F.takeError())
                .rfind("cannot read '/nonexistent/atrex/results.jsonl': ", 0),
            0u);
}

TEST(ResultsTest, LintReport) {
  auto L = parseLintReport("lint.json",
                           R"({"tool": "atrex-lint", "schema_version": 1,
    "submissions": [{"path": "k.cu", "files": ["/abs/k.cu"], "verdict": "fallback",
                     "entries": ["gemm_bf16"]}]})");
  ASSERT_TRUE(bool(L)) << toString(L.takeError());
  ASSERT_EQ(L->size(), 1u);
  EXPECT_EQ((*L)[0].Verdict, "fallback");
  EXPECT_EQ((*L)[0].Files[0], "/abs/k.cu");
  EXPECT_EQ((*L)[0].Entries[0], "gemm_bf16");
  auto Bad = parseLintReport(
      "lint.json",
      R"({"tool": "atrex-lint", "schema_version": 2, "submissions": []})");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(
      toString(Bad.takeError()),
      "'lint.json': unsupported atrex-lint schema_version 2 (expected 1)");
  Bad =
      parseLintReport("lint.json", R"({"tool": "other", "schema_version": 1})");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "'lint.json': not an atrex-lint report (\"tool\" is not "
            "\"atrex-lint\")");
}

TEST(ResultsTest, MatchLint) {
  std::vector<LintSubmission> Lint = {
      {"/w/sets/a/rms.cu", {"/w/sets/a/rms.cu"}, "adopted", {"rms_norm"}},
      {"/w/sets/b/rms.cu", {"/w/sets/b/rms.cu"}, "fallback", {"rms_norm"}},
      {"gemm.cu", {"/elsewhere/gemm.cu"}, "adopted", {"gemm_bf16"}},
      {"silu_sub",
       {"/x/silu.cu", "/x/bind.cpp"},
       "fallback",
       {"silu_and_mul"}}};
  GateResult R;
  R.Source = "/w/sets/b/rms.cu"; // exact
  EXPECT_EQ(matchLint(Lint, R), &Lint[1]);
  R.Source = "sets/a/rms.cu"; // path-component suffix
  EXPECT_EQ(matchLint(Lint, R), &Lint[0]);
  R.Source = "other/rms.cu";         // two files named rms.cu: ambiguous
  R.SubmissionOperator = "rms_norm"; // and two entries rms_norm
  EXPECT_EQ(matchLint(Lint, R), nullptr);
  R.Source = "examples/gemm.cu"; // file name
  R.SubmissionOperator = "";
  EXPECT_EQ(matchLint(Lint, R), &Lint[2]);
  R.Source = "bla/ms.cu"; // "ms.cu" is not a component suffix of rms.cu
  EXPECT_EQ(matchLint(Lint, R), nullptr);
  R.Source = "";
  R.SubmissionName = "silu_sub"; // atrex-lint --submission=NAME
  EXPECT_EQ(matchLint(Lint, R), &Lint[3]);
  R.SubmissionName = "";
  R.ProblemOperator = "gemm_bf16"; // by entry point
  EXPECT_EQ(matchLint(Lint, R), &Lint[2]);
}

} // namespace
