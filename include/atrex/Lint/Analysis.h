//===- Analysis.h - run atrex-lint's checks on a model ----------*- C++ -*-===//

#ifndef ATREX_LINT_ANALYSIS_H
#define ATREX_LINT_ANALYSIS_H

#include "atrex/Lint/Model.h"
#include <string>
#include <vector>

namespace atrex {
namespace lint {
class Policy;

struct AnalysisOptions {
  /// Entry points (qualified or unqualified names). Empty: every host
  /// function with external linkage (and load-time initialisers).
  std::vector<std::string> Entries;
};

/// Runs every check of the policy on a (merged) model and decides the
/// verdict. Findings are sorted by file and line.
SubmissionResult analyze(const Model &M, const Policy &P,
                         const AnalysisOptions &Opts);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_ANALYSIS_H
