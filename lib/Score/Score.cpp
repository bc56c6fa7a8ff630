//===- Score.cpp - S_i, per-operator medians, S_agg and rates -------------===//
//
// Part of atrex. See include/atrex/Score/Score.h and docs/scoring.md.
//
//===----------------------------------------------------------------------===//

#include "atrex/Score/Score.h"
#include "atrex-rt/Protocol.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <set>

namespace protocol = atrex::rt::protocol;

using namespace llvm;
using namespace atrex::score;

static Error err(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

Error atrex::score::addResultsFile(SubmissionSet &S, StringRef Path,
                                   std::vector<std::string> &InputErrors) {
  Expected<ResultsFile> F = loadResults(Path);
  if (!F)
    return F.takeError();
  S.ResultFiles.push_back(Path.str());
  for (std::string &E : F->Errors)
    InputErrors.push_back(std::move(E));
  for (GateResult &R : F->Results)
    S.Results.push_back(std::move(R));
  return Error::success();
}

Error atrex::score::addLintReport(SubmissionSet &S, StringRef Path) {
  Expected<std::vector<LintSubmission>> L = loadLintReport(Path);
  if (!L)
    return L.takeError();
  if (!S.Lint)
    S.Lint.emplace();
  S.Lint->insert(S.Lint->end(), L->begin(), L->end());
  return Error::success();
}

double atrex::score::median(std::vector<double> V) {
  if (V.empty())
    return 0;
  llvm::sort(V);
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

bool atrex::score::gpuMatches(StringRef EnvGpu, StringRef Name) {
  if (EnvGpu.equals_insensitive(Name))
    return true;
  SmallVector<StringRef> Words;
  StringRef Rest = EnvGpu;
  while (!Rest.empty()) {
    Rest = Rest.drop_while([](char C) { return !isAlnum(C); });
    StringRef Word = Rest.take_while([](char C) { return isAlnum(C); });
    Rest = Rest.drop_front(Word.size());
    if (!Word.empty() && Word.equals_insensitive(Name))
      return true;
  }
  return false;
}

Expected<std::string> atrex::score::selectGpu(const SealedBundle &B,
                                              ArrayRef<SubmissionSet> Sets,
                                              StringRef Requested,
                                              std::string *SelectedBy) {
  auto Names = [&] {
    std::vector<std::string> N;
    for (const auto &KV : B.Gpus)
      N.push_back(KV.first);
    return join(N, ", ");
  };
  auto By = [&](StringRef How) {
    if (SelectedBy)
      *SelectedBy = How.str();
  };
  if (!Requested.empty()) {
    for (const auto &KV : B.Gpus)
      if (StringRef(KV.first).equals_insensitive(Requested)) {
        By("option");
        return KV.first;
      }
    return err("no hardware entry '" + Requested +
               "' in the sealed bundle (it has: " + Names() + ")");
  }
  std::set<std::string> Matched, Unmatched;
  for (const SubmissionSet &S : Sets)
    for (const GateResult &R : S.Results) {
      if (R.Gpu.empty())
        continue;
      bool Any = false;
      for (const auto &KV : B.Gpus)
        if (gpuMatches(R.Gpu, KV.first)) {
          Matched.insert(KV.first);
          Any = true;
        }
      if (!Any)
        Unmatched.insert(R.Gpu);
    }
  if (Matched.size() > 1)
    return err("the results ran on several GPUs of the sealed bundle (" +
               join(Matched, ", ") + "); choose one with --gpu");
  if (Matched.size() == 1) {
    By("results");
    return *Matched.begin();
  }
  if (B.Gpus.size() == 1) {
    By("only-entry");
    return B.Gpus.begin()->first;
  }
  if (!Unmatched.empty())
    return err("no hardware entry of the sealed bundle (" + Names() +
               ") matches the results' GPU '" + *Unmatched.begin() +
               "'; choose one with --gpu");
  return err("the results name no GPU and the sealed bundle has several (" +
             Names() + "); choose one with --gpu");
}

/// The result to score among several for one problem: the latest by
/// started_at (ISO 8601 UTC, so ordered as text), then the last given.
static const GateResult *latest(ArrayRef<const GateResult *> Rs) {
  const GateResult *Best = nullptr;
  for (const GateResult *R : Rs)
    if (!Best || R->StartedAt >= Best->StartedAt)
      Best = R;
  return Best;
}

static bool verdictCounts(StringRef Verdict, bool Baseline) {
  if (Verdict == protocol::kAdopted)
    return true;
  return Baseline &&
         (Verdict == protocol::kFallback || Verdict == protocol::kNoKernel);
}

static void scoreProblem(ProblemScore &PS, const SubmissionSet &Set) {
  const Roofline &Roof = *PS.Roof;
  if (!PS.Result) {
    PS.ZeroReason = "missing";
    PS.ZeroDetail = "no result";
    return;
  }
  const GateResult &R = *PS.Result;
  PS.Correct = R.correct();
  PS.Passed = R.Status == protocol::kPass;
  PS.DynamicAdopted = R.Verdict == protocol::kAdopted;
  if (R.MedianUs) {
    PS.TMeasuredS = *R.MedianUs * 1e-6;
    if (Roof.FlopsTotal > 0)
      PS.AchievedFlops = Roof.FlopsTotal / *PS.TMeasuredS;
  }
  PS.Suspicious = R.Verdict == protocol::kSuspicious ||
                  (PS.TMeasuredS && *PS.TMeasuredS < Roof.floorS());
  auto Zero = [&](StringRef Why, const Twine &Detail) {
    PS.S = 0;
    PS.ZeroReason = Why.str();
    PS.ZeroDetail = Detail.str();
  };
  std::string Reason = R.Reason.empty() ? "" : ": " + R.Reason;
  if (R.Status == protocol::kError)
    return Zero("error", "gate error at " + R.Stage + Reason);
  if (R.Stage == protocol::kStageCompile)
    return Zero("compile", "compile failed" + Reason);
  if (!PS.Correct)
    return Zero("correctness", "incorrect at " + R.Stage + Reason);
  if (PS.Suspicious) {
    if (PS.TMeasuredS && *PS.TMeasuredS < Roof.floorS())
      return Zero("suspicious",
                  formatv("suspicious: median {0:F3} us is below the "
                          "datasheet floor {1:F3} us",
                          *PS.TMeasuredS * 1e6, Roof.floorS() * 1e6));
    return Zero("suspicious", "suspicious verdict" + Reason);
  }
  if (!PS.Passed)
    return Zero("failed", "failed at " + R.Stage + Reason);
  if (!PS.TMeasuredS)
    return Zero("no-timing", "no performance.median_us");
  if (!verdictCounts(R.Verdict, Set.Baseline))
    return Zero("verdict", "dynamic verdict " + R.Verdict);
  PS.S = speedScore(Roof.TRooflineS, *PS.TMeasuredS);
  PS.SNoFloor = speedScore(Roof.noFloorS(), *PS.TMeasuredS);
}

static PartScore part(ArrayRef<const ProblemScore *> Ps) {
  PartScore P;
  P.Problems = Ps.size();
  double W = 0, WS = 0;
  for (const ProblemScore *PS : Ps) {
    W += PS->Weight;
    WS += PS->Weight * PS->S;
  }
  P.WeightShare = W;
  if (W > 0)
    P.SAgg = WS / W;
  return P;
}

Expected<unsigned> atrex::score::fillMissing(SubmissionSet &Into,
                                             const SubmissionSet &From) {
  if (&Into == &From || Into.Name == From.Name)
    return createStringError("--fill: set '" + Into.Name +
                             "' cannot stand in for itself");
  if (!Into.FilledFrom.empty())
    return createStringError("--fill: set '" + Into.Name +
                             "' is already filled from '" + Into.FilledFrom +
                             "'");
  std::set<std::string> Have;
  for (const GateResult &R : Into.Results)
    Have.insert(R.ProblemId);
  std::set<std::string> Filled;
  for (const GateResult &R : From.Results)
    if (!Have.count(R.ProblemId)) {
      Into.Results.push_back(R);
      Filled.insert(R.ProblemId);
    }
  Into.FilledFrom = From.Name;
  Into.Filled = Filled.size();
  return Into.Filled;
}

static SetScore scoreSet(const ScoreReport &Rep, const SubmissionSet &Set,
                         std::vector<std::string> &Warnings) {
  SetScore S;
  S.Name = Set.Name;
  S.Baseline = Set.Baseline;
  S.ResultFiles = Set.ResultFiles;
  S.LintFile = Set.LintFile;
  S.FilledFrom = Set.FilledFrom;
  S.Filled = Set.Filled;

  // Results by problem id; unknown ids are warned about and ignored.
  std::map<std::string, std::vector<const GateResult *>> ById;
  std::map<std::string, unsigned> UnknownIds;
  std::map<std::string, std::pair<unsigned, std::string>> OtherProblem;
  std::set<std::string> OtherGpus;
  for (const GateResult &R : Set.Results) {
    const SuiteProblem *Known = nullptr;
    for (const SuiteProblem &P : Rep.Problems)
      if (P.Id == R.ProblemId)
        Known = &P;
    if (!Known) {
      ++UnknownIds[R.ProblemId];
      continue;
    }
    // A result of another problem under this id (gated against another
    // packing of the suite) must not be scored as this one.
    bool OtherOp =
        !R.ProblemOperator.empty() && R.ProblemOperator != Known->Operator;
    const json::Object *Shape = R.ProblemShape.getAsObject();
    bool OtherShape =
        Shape && !Shape->empty() && R.ProblemShape != Known->Shape;
    if (OtherOp || OtherShape) {
      auto &[N, What] = OtherProblem[R.ProblemId];
      ++N;
      What = formatv("the result's {0} {1}, the suite's {2} {3}",
                     R.ProblemOperator, R.ProblemShape, Known->Operator,
                     Known->Shape);
      continue;
    }
    ById[R.ProblemId].push_back(&R);
    if (!R.Gpu.empty() && !gpuMatches(R.Gpu, Rep.Gpu))
      OtherGpus.insert(R.Gpu);
  }
  for (const auto &[Id, N] : UnknownIds)
    S.Warnings.push_back(formatv("{0} result(s) for '{1}', which is not a "
                                 "problem of the suite; ignored",
                                 N, Id));
  for (const auto &[Id, NW] : OtherProblem)
    S.Warnings.push_back(formatv(
        "{0} result(s) for '{1}' are of another problem ({2}): gated against "
        "another packing of the suite? (bench/sets/rekey-results.py re-keys "
        "results by operator and shape); ignored",
        NW.first, Id, NW.second));
  for (const std::string &G : OtherGpus)
    S.Warnings.push_back("results ran on '" + G + "', not " + Rep.Gpu +
                         "; they are scored against " + Rep.Gpu +
                         "'s rooflines");

  std::set<std::string> UnmatchedSources;
  for (const SuiteProblem &P : Rep.Problems) {
    ProblemScore PS;
    PS.Problem = &P;
    PS.Roof = &P.Rooflines.at(Rep.Gpu);
    auto W = Rep.Weights.find(P.Id);
    PS.Weight = W == Rep.Weights.end() ? 0 : W->second;
    auto It = ById.find(P.Id);
    if (It != ById.end()) {
      PS.ResultCount = It->second.size();
      const GateResult *R = latest(It->second);
      PS.Result = *R;
      if (PS.ResultCount > 1)
        S.Warnings.push_back(formatv(
            "problem '{0}' has {1} results; scoring the latest by started_at "
            "({2}, {3}:{4})",
            P.Id, PS.ResultCount, R->StartedAt.empty() ? "-" : R->StartedAt,
            R->File, R->Line));
      if (Set.Lint) {
        if (const LintSubmission *L = matchLint(*Set.Lint, *R)) {
          PS.StaticVerdict = L->Verdict;
          PS.StaticDsls = L->KernelDsls;
        } else
          UnmatchedSources.insert(R->Source.empty() ? R->SubmissionName
                                                    : R->Source);
      }
    } else {
      S.Missing.push_back(P.Id);
    }
    scoreProblem(PS, Set);
    S.Problems.push_back(std::move(PS));
  }
  for (const std::string &Src : UnmatchedSources)
    S.Warnings.push_back("no submission of '" + Set.LintFile + "' matches '" +
                         Src + "'; its static verdict is unknown");

  // Phase weights, and the aggregates.
  std::map<std::string, double> PhaseW;
  for (const ProblemScore &PS : S.Problems)
    PhaseW[PS.Problem->Phase] += PS.Weight;
  std::map<std::string, std::vector<const ProblemScore *>> ByPhase, ByRegime,
      ByOp;
  unsigned Correct = 0, Passed = 0, Dyn = 0, Static = 0, Both = 0;
  std::map<std::string, unsigned> ByDsl;
  for (ProblemScore &PS : S.Problems) {
    double PW = PhaseW[PS.Problem->Phase];
    PS.PhaseWeight = PW > 0 ? PS.Weight / PW : 0;
    S.SAgg += PS.Weight * PS.S;
    S.SAggNoFloor += PS.Weight * PS.SNoFloor;
    ByPhase[PS.Problem->Phase].push_back(&PS);
    ByRegime[PS.Roof->Regime].push_back(&PS);
    ByOp[PS.Problem->Operator].push_back(&PS);
    Correct += PS.Correct;
    Passed += PS.Passed;
    Dyn += PS.DynamicAdopted;
    Static += PS.StaticVerdict == protocol::kAdopted;
    if (PS.StaticVerdict == protocol::kAdopted)
      for (const std::string &D : PS.StaticDsls)
        ++ByDsl[D];
    Both += PS.DynamicAdopted && PS.StaticVerdict == protocol::kAdopted;
    S.Results += PS.Result.has_value();
    S.Scored += PS.S > 0;
    S.Suspicious += PS.Suspicious;
  }
  for (StringRef Phase : {"prefill", "decode"})
    S.Phases[Phase.str()] = part(ByPhase[Phase.str()]);
  for (StringRef Regime : {"memory", "compute"})
    S.Regimes[Regime.str()] = part(ByRegime[Regime.str()]);
  double N = S.Problems.size();
  S.CorrectnessRate = Correct / N;
  S.PassRate = Passed / N;
  S.DynamicAdoption = Dyn / N;
  if (Set.Lint) {
    S.StaticAdoption = Static / N;
    S.BothAdoption = Both / N;
    for (const auto &[D, Count] : ByDsl)
      S.DslAdoption[D] = Count / N;
  }
  for (auto &[Op, Ps] : ByOp) {
    OperatorScore O;
    O.Operator = Op;
    std::vector<double> Ss;
    PartScore P = part(Ps);
    O.WeightShare = P.WeightShare;
    O.SAgg = P.SAgg;
    for (const ProblemScore *PS : Ps) {
      ++O.Problems;
      O.Results += PS->Result.has_value();
      O.Correct += PS->Correct;
      O.Passed += PS->Passed;
      O.Adopted += PS->DynamicAdopted;
      O.Scored += PS->S > 0;
      Ss.push_back(PS->S);
    }
    O.MedianS = median(std::move(Ss));
    S.Operators.push_back(std::move(O));
  }
  for (const std::string &W : S.Warnings)
    Warnings.push_back("set '" + S.Name + "': " + W);
  return S;
}

Expected<ScoreReport> atrex::score::computeScores(const SealedBundle &B,
                                                  ArrayRef<SubmissionSet> Sets,
                                                  const ScoreOptions &Opts) {
  if (Sets.empty())
    return err("no submission set to score");
  std::set<std::string> Names;
  for (const SubmissionSet &S : Sets)
    if (!Names.insert(S.Name).second)
      return err("submission set '" + S.Name + "' is given twice");

  ScoreReport Rep;
  auto Gpu = selectGpu(B, Sets, Opts.Gpu, &Rep.GpuSelectedBy);
  if (!Gpu)
    return Gpu.takeError();
  Rep.Gpu = *Gpu;
  Rep.GpuInfo = B.Gpus.at(Rep.Gpu);
  for (const SuiteProblem &P : B.Problems)
    if (!P.Rooflines.count(Rep.Gpu))
      return err("problem '" + P.Id + "' has no roofline for " + Rep.Gpu);
  Rep.Suite = B.Suite;
  Rep.SealedPath = B.SealedPath;
  Rep.WeightsPath = B.WeightsPath;
  Rep.WeightsSource = B.WeightsSource;
  Rep.Commitment = B.Commitment;
  Rep.Problems = B.Problems;
  Rep.Warnings = B.Warnings;
  Rep.SuiteProblems = B.Problems.size();

  auto weightOf = [&](const SuiteProblem &P) {
    auto It = B.Weights.find(P.Id);
    return It == B.Weights.end() ? 0.0 : It->second;
  };
  double Sum = 0;
  for (const SuiteProblem &P : B.Problems)
    Sum += weightOf(P);
  if (!(Sum > 0))
    return err("the weights of the suite's problems sum to 0");
  if (Opts.MeasuredOnly) {
    std::set<std::string> Measured;
    for (const SubmissionSet &S : Sets)
      for (const GateResult &G : S.Results)
        Measured.insert(G.ProblemId);
    std::vector<SuiteProblem> Kept;
    double KeptSum = 0;
    for (const SuiteProblem &P : B.Problems)
      if (Measured.count(P.Id)) {
        Kept.push_back(P);
        KeptSum += weightOf(P);
      }
    if (Kept.empty())
      return err("--measured-only: no result names a problem of the suite");
    if (!(KeptSum > 0))
      return err("--measured-only: the measured problems have no weight");
    Rep.Scope = "measured";
    Rep.ScopeWeightShare = KeptSum / Sum;
    Rep.Problems = std::move(Kept);
    Sum = KeptSum;
  }
  for (const SuiteProblem &P : Rep.Problems)
    Rep.Weights[P.Id] = weightOf(P) / Sum;
  for (const SubmissionSet &S : Sets)
    Rep.Sets.push_back(scoreSet(Rep, S, Rep.Warnings));
  return std::move(Rep);
}
