//===- LoopStateTest.cpp - the loop's accept rule, revert-to-best, dropout ===//
//
// Part of atrex. The decisions of the measure-revise loop (lib/Agent/Loop.cpp,
// docs/agent.md) without a backend, a linter or a gate: evaluations are built
// by hand. Each test names the rule it holds to; breaking the rule (accepting
// a fallback on speed, a dropout one iteration late, a rejected candidate
// becoming the best) fails one of them.
//
//===----------------------------------------------------------------------===//

#include "atrex-rt/Protocol.h"
#include "atrex/Agent/Loop.h"

#include "gtest/gtest.h"

using namespace atrex::agent;
namespace protocol = atrex::rt::protocol;

namespace {

/// A measured evaluation: gate pass with \p GateVerdict, lint \p LintVerdict,
/// median \p Us, S_i \p S.
Evaluation measured(double S, double Us,
                    const char *LintVerdict = protocol::kAdopted,
                    const char *GateVerdict = protocol::kAdopted) {
  Evaluation E;
  E.LintVerdict = LintVerdict;
  E.Measured = true;
  E.GateStatus = protocol::kPass;
  E.GateVerdict = GateVerdict;
  E.MedianUs = Us;
  E.S = S;
  return E;
}

Kernel kernel(const std::string &Hash) {
  Kernel K;
  K.Hash = Hash;
  K.Source = "// " + Hash;
  return K;
}

/// Decides and records one iteration, as runLoop does.
Outcome step(LoopState &St, unsigned I, const std::string &Hash,
             const Evaluation &E, const LoopOptions &O) {
  Outcome Out = St.decide(E, O);
  St.recordEvaluated(I, kernel(Hash), E, Out);
  return Out;
}

TEST(LoopState, FirstAdoptedKernelIsAcceptedThenOnlyFasterOnes) {
  LoopState St;
  LoopOptions O;
  EXPECT_TRUE(step(St, 0, "start", measured(0.10, 40), O).Accepted);
  EXPECT_EQ(St.Best.Hash, "start");
  Outcome Slower = step(St, 1, "slow", measured(0.05, 80), O);
  EXPECT_FALSE(Slower.Accepted);
  EXPECT_EQ(Slower.Kind, "slower");
  // An equal S_i does not beat the best (strictly greater).
  EXPECT_FALSE(step(St, 2, "same", measured(0.10, 40), O).Accepted);
  EXPECT_TRUE(step(St, 3, "fast", measured(0.20, 20), O).Accepted);
  EXPECT_EQ(St.Best.Hash, "fast");
  EXPECT_EQ(St.Best.Iteration, 3u);
  EXPECT_DOUBLE_EQ(St.Best.S, 0.20);
}

TEST(LoopState, MinImprovementIsRelative) {
  LoopState St;
  LoopOptions O;
  O.MinImprovement = 0.1;
  step(St, 0, "start", measured(0.50, 40), O);
  EXPECT_FALSE(step(St, 1, "a", measured(0.54, 37), O).Accepted);
  EXPECT_TRUE(step(St, 2, "b", measured(0.56, 35), O).Accepted);
}

TEST(LoopState, FasterDelegationIsNeverAccepted) {
  LoopState St;
  LoopOptions O;
  step(St, 0, "start", measured(0.10, 40), O);
  // Faster, but atrex-lint or the gate's attribution says fallback.
  Outcome Lint =
      step(St, 1, "cublas", measured(0.90, 5, protocol::kFallback), O);
  EXPECT_FALSE(Lint.Accepted);
  EXPECT_EQ(Lint.Kind, protocol::kFallback);
  Outcome Gate =
      step(St, 2, "torch",
           measured(0.90, 5, protocol::kAdopted, protocol::kFallback), O);
  EXPECT_FALSE(Gate.Accepted);
  EXPECT_EQ(Gate.Kind, protocol::kFallback);
  Outcome Sus =
      step(St, 3, "cheat", measured(1.0, 1, protocol::kSuspicious), O);
  EXPECT_FALSE(Sus.Accepted);
  EXPECT_EQ(Sus.Kind, protocol::kSuspicious);
  EXPECT_EQ(St.Best.Hash, "start");
}

TEST(LoopState, GateFailuresHaveTheirKinds) {
  LoopState St;
  LoopOptions O;
  Evaluation Compile = measured(0, 0);
  Compile.GateStatus = protocol::kFail;
  Compile.GateStage = protocol::kStageCompile;
  EXPECT_EQ(St.decide(Compile, O).Kind, "compile");
  Evaluation Wrong = measured(0, 0);
  Wrong.GateStatus = protocol::kFail;
  Wrong.GateStage = protocol::kStageCorrectness;
  EXPECT_EQ(St.decide(Wrong, O).Kind, "wrong-output");
  Evaluation NoResult = measured(0, 0);
  NoResult.GateError = "the gate gave no result line";
  EXPECT_EQ(St.decide(NoResult, O).Kind, protocol::kError);
}

TEST(LoopState, UnmeasuredIsNeverAccepted) {
  LoopState St;
  LoopOptions O;
  O.Measured = false;
  Evaluation E = measured(0.9, 5);
  E.Measured = false;
  Outcome Out = St.decide(E, O);
  EXPECT_FALSE(Out.Accepted);
  EXPECT_EQ(Out.Kind, "unmeasured");
}

TEST(LoopState, RevertToBest) {
  LoopState St;
  LoopOptions O;
  step(St, 0, "start", measured(0.10, 40), O);
  step(St, 1, "best", measured(0.30, 13), O);
  step(St, 2, "worse", measured(0.20, 20), O);
  step(St, 3, "broken", measured(0.50, 8, protocol::kFallback), O);
  // The rejected candidates are in the history with their diagnosis; the
  // kernel to revise is the best, not the last.
  EXPECT_EQ(St.Best.Hash, "best");
  EXPECT_EQ(St.Best.Source, "// best");
  ASSERT_EQ(St.History.size(), 4u);
  EXPECT_EQ(St.History.back().Kind, protocol::kFallback);
  EXPECT_FALSE(St.History.back().Diagnosis.empty());
  EXPECT_EQ(St.LastIteration, 3u);
}

TEST(LoopState, StartingSubmissionIsRevisedUntilSomethingIsAccepted) {
  LoopState St;
  LoopOptions O;
  // A delegating start (at::matmul): not accepted, but the kernel to revise.
  Outcome Start =
      step(St, 0, "matmul", measured(0.8, 5, protocol::kFallback), O);
  EXPECT_FALSE(Start.Accepted);
  EXPECT_FALSE(St.HaveAccepted);
  EXPECT_EQ(St.Best.Hash, "matmul");
  EXPECT_FALSE(St.Best.Accepted);
  EXPECT_DOUBLE_EQ(St.Best.S, 0);
  // A rejected later candidate does not replace it.
  step(St, 1, "wrong", measured(0.9, 4, protocol::kFallback), O);
  EXPECT_EQ(St.Best.Hash, "matmul");
  // The first adopted kernel is accepted whatever its S_i (> 0).
  EXPECT_TRUE(step(St, 2, "own", measured(0.01, 400), O).Accepted);
  EXPECT_EQ(St.Best.Hash, "own");
}

TEST(LoopState, DropoutExactlyAfterKStaleIterations) {
  LoopState St;
  LoopOptions O;
  O.DropoutAfter = 2;
  step(St, 0, "start", measured(0.10, 40), O);
  // Iteration 0 is never stale.
  EXPECT_FALSE(St.dropoutDue(O));
  step(St, 1, "a", measured(0.05, 80), O);
  EXPECT_FALSE(St.dropoutDue(O)); // 1 stale of 2
  step(St, 2, "b", measured(0.05, 80), O);
  std::optional<DropoutDue> Due = St.dropoutDue(O);
  ASSERT_TRUE(Due);
  EXPECT_EQ(Due->Trigger, "stale");
  EXPECT_EQ(Due->Stale, 2u);
  EXPECT_EQ(Due->Kinds, (std::vector<std::string>{"slower", "slower"}));
}

TEST(LoopState, AnImprovementResetsTheStaleCount) {
  LoopState St;
  LoopOptions O;
  O.DropoutAfter = 2;
  step(St, 0, "start", measured(0.10, 40), O);
  step(St, 1, "a", measured(0.05, 80), O);
  step(St, 2, "b", measured(0.20, 20), O); // accepted
  step(St, 3, "c", measured(0.05, 80), O);
  EXPECT_FALSE(St.dropoutDue(O));
  St.recordBackendFailure(4, "the command exited with status 1");
  ASSERT_TRUE(St.dropoutDue(O));
  EXPECT_EQ(St.dropoutDue(O)->Kinds,
            (std::vector<std::string>{"slower", "backend"}));
}

TEST(LoopState, DropoutOnRepeatedFailuresOfOneKind) {
  LoopState St;
  LoopOptions O;
  O.DropoutAfter = 0; // off: only the same-kind trigger
  O.DropoutSameKind = 2;
  step(St, 0, "start", measured(0.10, 40), O);
  step(St, 1, "a", measured(0.9, 5, protocol::kFallback), O);
  step(St, 2, "b", measured(0.05, 80), O);
  EXPECT_FALSE(St.dropoutDue(O)); // fallback, slower: two kinds
  step(St, 3, "c", measured(0.05, 80), O);
  std::optional<DropoutDue> Due = St.dropoutDue(O);
  ASSERT_TRUE(Due);
  EXPECT_EQ(Due->Trigger, "same-kind");
  EXPECT_EQ(Due->Kinds, (std::vector<std::string>{"slower", "slower"}));
}

TEST(LoopState, DropoutMasksTheHistoryAndKeepsTheBest) {
  LoopState St;
  LoopOptions O;
  O.DropoutAfter = 2;
  step(St, 0, "start", measured(0.10, 40), O);
  step(St, 1, "best", measured(0.30, 13), O);
  step(St, 2, "a", measured(0.05, 80), O);
  step(St, 3, "b", measured(0.05, 80), O);
  std::optional<DropoutDue> Due = St.dropoutDue(O);
  ASSERT_TRUE(Due);
  std::vector<unsigned> Masked = St.dropout(3, *Due);
  EXPECT_EQ(Masked, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_TRUE(St.History.empty());
  EXPECT_EQ(St.Dropouts, 1u);
  // The accepted kernel, its measurements and the explored hashes survive.
  EXPECT_EQ(St.Best.Hash, "best");
  EXPECT_DOUBLE_EQ(St.Best.S, 0.30);
  EXPECT_EQ(St.Explored, (std::vector<std::string>{"start", "best", "a", "b"}));
  EXPECT_NE(St.DropoutNote.find("optimization dropout 1 after iteration 3"),
            std::string::npos);
  EXPECT_NE(St.DropoutNote.find("best kernel (iteration 1)"),
            std::string::npos);
  // The counter restarts: not due again until k more stale iterations.
  EXPECT_FALSE(St.dropoutDue(O));
  step(St, 4, "c", measured(0.05, 80), O);
  EXPECT_FALSE(St.dropoutDue(O));
  // After a dropout, an improvement is still measured against the best.
  EXPECT_FALSE(step(St, 5, "d", measured(0.25, 16), O).Accepted);
  EXPECT_TRUE(step(St, 6, "e", measured(0.35, 11), O).Accepted);
}

TEST(LoopState, ExploredIsNotDuplicated) {
  LoopState St;
  LoopOptions O;
  step(St, 0, "start", measured(0.10, 40), O);
  step(St, 1, "a", measured(0.05, 80), O);
  step(St, 2, "a", measured(0.05, 80), O);
  EXPECT_EQ(St.Explored, (std::vector<std::string>{"start", "a"}));
}

} // namespace
