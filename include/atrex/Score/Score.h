//===- Score.h - S_i, per-operator medians, S_agg and rates ------*- C++
//-*-===//
//
// Part of atrex. Scores submission sets (gate results, optionally lint
// reports) against a sealed bundle:
//
//   S_i   = min(1, T_roofline_i / T_measured_i), or 0 (see ZeroReason)
//   S_op  = median of S_i over the operator's problems
//   S_agg = sum_i w_i S_i, weights normalised to 1 over the suite, and
//           within each phase and regime
//
// plus correctness, pass and adoption rates. docs/scoring.md defines each.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SCORE_SCORE_H
#define ATREX_SCORE_SCORE_H

#include "atrex/Score/Results.h"
#include "atrex/Score/Sealed.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace score {

/// The label every report gives a baseline set.
inline constexpr const char *BaselineLabel = "baseline (delegation permitted)";

/// One submission set as given on the command line.
struct SubmissionSet {
  std::string Name;
  bool Baseline = false;
  std::vector<std::string> ResultFiles;
  std::vector<GateResult> Results; ///< in file order
  std::string LintFile;            ///< "" without a lint report
  std::optional<std::vector<LintSubmission>> Lint;
  /// --fill: the set whose results stand in for the problems this set has
  /// none for, and how many problems took one.
  std::string FilledFrom;
  unsigned Filled = 0;
};

/// Gives \p Into the results of \p From for every problem \p Into has no
/// result for (a set of library kernels for some operators, completed by a
/// baseline set); they are scored as \p Into's. Returns how many problems
/// were filled; an error when \p Into is \p From or was filled before.
llvm::Expected<unsigned> fillMissing(SubmissionSet &Into,
                                     const SubmissionSet &From);

/// Appends the results file \p Path to \p S (ResultFiles, Results); its
/// malformed lines ("FILE:LINE: message") are appended to \p InputErrors and
/// the others kept. An unreadable file is an error.
llvm::Error addResultsFile(SubmissionSet &S, llvm::StringRef Path,
                           std::vector<std::string> &InputErrors);
/// Appends the atrex-lint report \p Path to \p S's lint submissions.
llvm::Error addLintReport(SubmissionSet &S, llvm::StringRef Path);

/// One (set, problem) score.
struct ProblemScore {
  const SuiteProblem *Problem = nullptr;
  double Weight = 0;      ///< normalised over the suite
  double PhaseWeight = 0; ///< normalised within the problem's phase
  const Roofline *Roof = nullptr;
  std::optional<GateResult> Result; ///< the latest result, if any
  unsigned ResultCount = 0;         ///< result lines for this problem
  double S = 0;
  /// S_i against the roofline without the latency floor (docs/roofline.md).
  double SNoFloor = 0;
  /// Why S is 0 ("" when it is not): missing, error, compile, correctness,
  /// failed, no-timing, suspicious, verdict.
  std::string ZeroReason;
  std::string ZeroDetail; ///< one line for reports
  bool Correct = false;
  bool Passed = false;     ///< gate status pass
  bool Suspicious = false; ///< gate verdict, or faster than the datasheet floor
  bool DynamicAdopted = false;
  std::string StaticVerdict; ///< lint verdict of the submission ("" unknown)
  std::vector<std::string> StaticDsls; ///< its launched kernels' DSLs (lint)
  std::optional<double> TMeasuredS;
  std::optional<double> AchievedFlops; ///< flops_total / T_measured
};

struct OperatorScore {
  std::string Operator;
  unsigned Problems = 0, Results = 0, Correct = 0, Passed = 0, Adopted = 0,
           Scored = 0;
  double WeightShare = 0;     ///< share of the suite's weight
  double MedianS = 0;         ///< median of S_i
  std::optional<double> SAgg; ///< weighted mean of S_i within the operator
  double passRate() const { return Problems ? double(Passed) / Problems : 0; }
};

/// S_agg restricted to a phase or a regime.
struct PartScore {
  unsigned Problems = 0;
  double WeightShare = 0;
  std::optional<double> SAgg; ///< none when the part weighs nothing
};

struct SetScore {
  std::string Name;
  bool Baseline = false;
  std::vector<std::string> ResultFiles;
  std::string LintFile;
  std::string FilledFrom; ///< --fill: the set that stands in, "" without
  unsigned Filled = 0;    ///< problems scored with its results
  std::vector<ProblemScore> Problems; ///< in suite order
  double SAgg = 0;
  double SAggNoFloor = 0;                   ///< S_agg of the SNoFloor values
  std::map<std::string, PartScore> Phases;  ///< prefill, decode
  std::map<std::string, PartScore> Regimes; ///< memory, compute
  double CorrectnessRate = 0;
  double PassRate = 0;
  double DynamicAdoption = 0;
  std::optional<double> StaticAdoption; ///< none without a lint report
  std::optional<double> BothAdoption;
  /// Per kernel DSL (atrex-lint's kernels[].dsl): the share of problems
  /// whose submission atrex-lint adopts with launched kernels in that DSL
  /// (FlyDSL adoption, Triton adoption, ...); empty without a lint report.
  std::map<std::string, double> DslAdoption;
  unsigned Results = 0, Scored = 0, Suspicious = 0;
  std::vector<OperatorScore> Operators; ///< sorted by name
  std::vector<std::string> Missing;     ///< problem ids without a result
  std::vector<std::string> Warnings;
};

struct ScoreOptions {
  /// GPU (hardware name of the sealed bundle) whose rooflines are used;
  /// empty: from the results' env.gpu.
  std::string Gpu;
  /// Score only the problems that some set has a result for, with the weights
  /// renormalised over them (a partial run); the reports state the scope and
  /// the share of the suite's weight it covers.
  bool MeasuredOnly = false;
};

/// Holds pointers into its own Problems: movable, not copyable.
struct ScoreReport {
  ScoreReport() = default;
  ScoreReport(ScoreReport &&) = default;
  ScoreReport &operator=(ScoreReport &&) = default;
  ScoreReport(const ScoreReport &) = delete;
  ScoreReport &operator=(const ScoreReport &) = delete;

  std::string Suite;
  std::string SealedPath, WeightsPath, WeightsSource;
  std::string Commitment;
  std::string PublicPath; ///< "" when the commitment was not checked
  std::string Gpu;
  std::string GpuSelectedBy; ///< "option", "results" or "only-entry"
  Hardware GpuInfo;
  std::vector<SuiteProblem> Problems;
  std::map<std::string, double> Weights; ///< normalised over the scope
  /// "suite" (every problem) or "measured" (problems with a result).
  std::string Scope = "suite";
  size_t SuiteProblems = 0;    ///< problems of the sealed bundle
  double ScopeWeightShare = 1; ///< the scope's share of the suite's weight
  std::vector<SetScore> Sets;
  std::vector<std::string> Warnings;
  std::vector<std::string> InputErrors; ///< malformed lines, kept going
};

/// S_i of a correct, passing, adopted measurement: min(1, T_roofline /
/// T_measured) (docs/scoring.md); the reasons for a zero are computeScores'.
inline double speedScore(double TRooflineS, double TMeasuredS) {
  return TMeasuredS > 0 ? std::min(1.0, TRooflineS / TMeasuredS) : 0.0;
}

/// Median of \p V (mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> V);

/// Picks the GPU: \p Requested if given (a hardware name of the bundle,
/// case-insensitive), else the hardware entry whose name is a word of the
/// results' env.gpu (all results must agree), else the bundle's only entry.
llvm::Expected<std::string> selectGpu(const SealedBundle &B,
                                      llvm::ArrayRef<SubmissionSet> Sets,
                                      llvm::StringRef Requested,
                                      std::string *SelectedBy = nullptr);

/// True when a gate's env.gpu names the hardware entry \p Name.
bool gpuMatches(llvm::StringRef EnvGpu, llvm::StringRef Name);

llvm::Expected<ScoreReport> computeScores(const SealedBundle &B,
                                          llvm::ArrayRef<SubmissionSet> Sets,
                                          const ScoreOptions &Opts);

} // namespace score
} // namespace atrex

#endif // ATREX_SCORE_SCORE_H
