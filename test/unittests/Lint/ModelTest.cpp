//===- ModelTest.cpp - model merging and name normalisation ---------------===//

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/ModelBuilder.h"
#include "atrex/Lint/Policy.h"
#include "gtest/gtest.h"

using namespace atrex::lint;

namespace {

TEST(ModelTest, StripTemplateArgs) {
  EXPECT_EQ(
      stripTemplateArgs("cutlass::gemm::device::Gemm<float, 2>::operator()"),
      "cutlass::gemm::device::Gemm::operator()");
  EXPECT_EQ(stripTemplateArgs("at::operator<<"), "at::operator<<");
  EXPECT_EQ(stripTemplateArgs("std::vector<std::pair<int, int>>::push_back"),
            "std::vector::push_back");
  EXPECT_EQ(stripTemplateArgs("X<a>::operator<=>"), "X::operator<=>");
  EXPECT_EQ(stripTemplateArgs("foo"), "foo");
}

FunctionNode fn(const std::string &Key, bool Body) {
  FunctionNode F;
  F.Key = F.Name = Key;
  F.HasBody = Body;
  F.Pos = {Key + ".cu", 1, 1};
  return F;
}

Site call(const std::string &Key, SiteKind K = SiteKind::Call) {
  Site S;
  S.Kind = K;
  S.Key = S.Name = Key;
  S.Pos = {"x.cu", 2, 3};
  return S;
}

// A launcher defined in one file and called from another: merging the two
// units makes the launch reachable from the binding's entry.
TEST(ModelTest, CrossUnitReachability) {
  Model A, B;
  FunctionNode Entry = fn("forward", true);
  Entry.IsEntryCandidate = true;
  Entry.Sites.push_back(call("launch"));
  A.Functions["forward"] = Entry;
  A.Functions["launch"] = fn("launch", false); // declaration only
  A.Files = {"binding.cpp"};

  FunctionNode Launch = fn("launch", true);
  Launch.Sites.push_back(call("kern", SiteKind::Launch));
  B.Functions["launch"] = Launch;
  FunctionNode Kern = fn("kern", true);
  Kern.IsKernel = true;
  B.Functions["kern"] = Kern;
  B.Files = {"kernel.cu"};

  AnalysisOptions O;
  SubmissionResult Alone = analyze(A, Policy::getDefault(), O);
  EXPECT_EQ(Alone.V, Verdict::NoKernel);

  A.merge(std::move(B));
  SubmissionResult R = analyze(A, Policy::getDefault(), O);
  EXPECT_EQ(R.V, Verdict::Adopted);
  ASSERT_EQ(R.Kernels.size(), 1u);
  EXPECT_TRUE(R.Kernels[0].Launched);
  EXPECT_EQ(R.Files.size(), 2u);
}

TEST(ModelTest, UnknownEntryIsAnError) {
  Model M;
  FunctionNode F = fn("f", true);
  M.Functions["f"] = F;
  AnalysisOptions O;
  O.Entries = {"does_not_exist"};
  SubmissionResult R = analyze(M, Policy::getDefault(), O);
  EXPECT_EQ(R.V, Verdict::Unknown);
  ASSERT_FALSE(R.Errors.empty());
  EXPECT_NE(R.Errors[0].find("does_not_exist"), std::string::npos);
}

TEST(ModelTest, DeadSitesAreNotFollowed) {
  Model M;
  FunctionNode Entry = fn("entry", true);
  Entry.IsEntryCandidate = true;
  Site S = call("cublasSgemm_v2");
  S.Dead = true;
  Entry.Sites.push_back(S);
  M.Functions["entry"] = Entry;
  SubmissionResult R = analyze(M, Policy::getDefault(), AnalysisOptions());
  EXPECT_EQ(R.V, Verdict::NoKernel);
  for (const Finding &F : R.Findings)
    EXPECT_NE(F.Check, "atrex-delegation-vendor");
}

} // namespace
