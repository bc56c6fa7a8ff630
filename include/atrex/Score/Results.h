//===- Results.h - gate results and lint reports as scoring reads -*- C++
//-*-===//
//
// Part of atrex. Readers for the two per-submission inputs of scoring: the
// gate's JSON Lines results (`atrex-gate-result/1`, docs/gate.md) and
// atrex-lint's JSON report (schema_version 1, docs/atrex-lint.md).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SCORE_RESULTS_H
#define ATREX_SCORE_RESULTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace score {

/// The parts of one gate result line that scoring uses.
struct GateResult {
  std::string File; ///< where the line came from
  unsigned Line = 0;
  std::string ProblemId;
  std::string ProblemOperator;
  /// problem.shape as the result recorded it (null when absent).
  llvm::json::Value ProblemShape = nullptr;
  std::string SubmissionName;
  std::string Source;
  std::string SubmissionOperator;
  std::string Status; ///< pass, fail, error
  std::string Stage;  ///< compile, setup, correctness, performance, done
  std::string Reason;
  std::string Verdict; ///< adopted, fallback, no-kernel, suspicious, unknown
  std::string Gpu;     ///< env.gpu ("" when the unit did not reach a GPU)
  std::string StartedAt;
  std::optional<bool> CorrectnessOk;
  std::optional<double> MedianUs;
  /// Where MedianUs comes from: "clean" (the gate's unsubscribed timing run),
  /// "attributed" (the run under the Compute Sanitizer: the clean run was not
  /// used, CleanWhy says why), "" (no clean run recorded: older results).
  std::string TimingSource;
  std::string CleanWhy;

  /// Correct output: `correctness.ok`, or, without it, a stage after
  /// correctness.
  bool correct() const;
};

/// Parses one result line. Errors do not name the file or line.
llvm::Expected<GateResult> parseResultLine(llvm::StringRef Text);

/// The results of one JSON Lines file; a malformed line is an error that
/// names the file and line and does not stop the reading.
struct ResultsFile {
  std::vector<GateResult> Results;
  std::vector<std::string> Errors; ///< "FILE:LINE: message"
};
ResultsFile parseResults(llvm::StringRef Name, llvm::StringRef Text);
/// Reads \p Path; an unreadable file is an error.
llvm::Expected<ResultsFile> loadResults(llvm::StringRef Path);

/// One submission of an atrex-lint JSON report.
struct LintSubmission {
  std::string Path;
  std::vector<std::string> Files;
  std::string Verdict;
  std::vector<std::string> Entries;
  /// The DSLs of its launched kernels (the report's kernels[].dsl), sorted.
  std::vector<std::string> KernelDsls;
};
llvm::Expected<std::vector<LintSubmission>>
parseLintReport(llvm::StringRef Name, llvm::StringRef Text);
llvm::Expected<std::vector<LintSubmission>>
loadLintReport(llvm::StringRef Path);

/// The lint submission that produced a gate result, or null: by path (exact,
/// then path-component suffix, then file name), then by submission name,
/// then by entry point named like the operator. Ambiguous matches give null.
const LintSubmission *matchLint(const std::vector<LintSubmission> &Lint,
                                const GateResult &R);

} // namespace score
} // namespace atrex

#endif // ATREX_SCORE_RESULTS_H
