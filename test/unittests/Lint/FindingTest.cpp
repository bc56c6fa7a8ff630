//===- FindingTest.cpp - verdict precedence and exit codes ----------------===//

#include "atrex/Lint/Finding.h"
#include "gtest/gtest.h"

using namespace atrex::lint;

namespace {

Finding finding(const char *Check, Severity S = Severity::Warning) {
  Finding F;
  F.Check = Check;
  F.Sev = S;
  F.Symbol = "sym";
  F.Library = "lib";
  return F;
}

SubmissionResult withKernel(bool Launched) {
  SubmissionResult R;
  KernelInfo K;
  K.Name = "k";
  K.Launched = Launched;
  R.Kernels.push_back(K);
  return R;
}

TEST(FindingTest, AdoptedWithoutFindings) {
  SubmissionResult R = withKernel(true);
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Adopted);
  ASSERT_EQ(R.Reasons.size(), 1u);
  EXPECT_NE(R.Reasons[0].find("1 own kernel"), std::string::npos);
}

TEST(FindingTest, Precedence) {
  SubmissionResult R = withKernel(true);
  R.Findings = {finding("atrex-no-kernel", Severity::Error),
                finding("atrex-delegation-torch")};
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Fallback);
  R.Findings.push_back(finding("atrex-evasion-dynamic-load", Severity::Error));
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Suspicious);
  R.Findings = {finding("atrex-no-kernel", Severity::Error)};
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::NoKernel);
}

TEST(FindingTest, NotesDoNotChangeTheVerdict) {
  SubmissionResult R = withKernel(true);
  R.Findings = {finding("atrex-evasion-static-state", Severity::Note),
                finding("atrex-kernel-unlaunched", Severity::Warning)};
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Adopted);
}

TEST(FindingTest, CompileErrorsAreUnknownNeverAdopted) {
  SubmissionResult R = withKernel(true);
  R.Errors = {"k.cu:3:1: error: expected ';'"};
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Unknown);
  // Positive evidence of delegation still wins.
  R.Findings = {finding("atrex-delegation-vendor")};
  decideVerdict(R);
  EXPECT_EQ(R.V, Verdict::Fallback);
}

TEST(FindingTest, ExitCodesAndNames) {
  EXPECT_EQ(exitCodeFor(Verdict::Adopted), 0);
  EXPECT_NE(exitCodeFor(Verdict::Fallback), 0);
  EXPECT_NE(exitCodeFor(Verdict::Unknown), 0);
  for (Verdict V : {Verdict::Adopted, Verdict::NoKernel, Verdict::Fallback,
                    Verdict::Suspicious, Verdict::Unknown})
    EXPECT_EQ(parseVerdict(verdictName(V)), V);
  EXPECT_EQ(parseSeverity("error"), Severity::Error);
  EXPECT_FALSE(parseSeverity("fatal").has_value());
}

} // namespace
