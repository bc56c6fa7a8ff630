//===- Analysis.h - run atrex-lint's checks on a model ----------*- C++ -*-===//

#ifndef ATREX_LINT_ANALYSIS_H
#define ATREX_LINT_ANALYSIS_H

#include "atrex/Lint/Model.h"
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace lint {
class Policy;

struct AnalysisOptions {
  /// Entry points (qualified or unqualified names). Empty: every host
  /// function with external linkage (and load-time initialisers).
  std::vector<std::string> Entries;
  /// The analysis mode; unset: the policy's, else detected from the code.
  std::optional<AnalysisMode> Mode;
  /// Why Mode was set ("--mode=program"), for the note in the report.
  std::string ModeReason;
};

/// Runs every check of the policy on a (merged) model and decides the
/// verdict. Findings are sorted by file and line.
/// The analysis mode of a model: the caller's (Opts.Mode), else the
/// policy's, else detected (a named entry or a Python extension module: a
/// submission; a `main`: a program; a torch extension or an extern "C"
/// function: a submission; else library code). \p Why says why.
AnalysisMode chooseMode(const Model &M, const Policy &P,
                        const AnalysisOptions &Opts, std::string &Why);

SubmissionResult analyze(const Model &M, const Policy &P,
                         const AnalysisOptions &Opts);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_ANALYSIS_H
