//===- Report.h - text, JSON and SARIF reports ------------------*- C++ -*-===//
//
// Part of atrex. Reports are written after the analysis, from the findings
// alone: the source files are reopened to render clang-style snippets and
// SARIF regions (clang's TextDiagnostic and SarifDocumentWriter).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_REPORT_H
#define ATREX_LINT_REPORT_H

#include "atrex/Lint/Finding.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace atrex {
namespace lint {
class Policy;

struct TextOptions {
  bool Color = false;
  bool Snippets = true;   ///< source line and caret under each diagnostic
  bool Inventory = false; ///< list kernels and entries
};

/// clang-style diagnostics, then one verdict line per submission.
void writeText(const std::vector<SubmissionResult> &Results,
               const TextOptions &Opts, llvm::raw_ostream &OS);

/// Diagnostics without source snippets (no clang needed: the IR plugin).
void writePlainText(const std::vector<SubmissionResult> &Results,
                    bool Inventory, llvm::raw_ostream &OS);

/// The documented JSON schema (docs/atrex-lint.md#json), version 1.
llvm::json::Value toJSON(const std::vector<SubmissionResult> &Results);

/// One submission of that schema; \p Complete adds what only the text report
/// needs (`rendered`, `launches_visible`), so that a result analysed in a
/// child process comes back whole.
llvm::json::Value submissionToJSON(const SubmissionResult &R,
                                   bool Complete = false);

/// The inverse of submissionToJSON: a submission read
/// back (the first missing or mistyped field is the error).
llvm::Expected<SubmissionResult> submissionFromJSON(const llvm::json::Value &V);

/// SARIF 2.1.0 through clang::SarifDocumentWriter: one run, one rule per
/// check, one result per finding, the call path as a code flow.
/// SARIF 2.1.0. Artifact URIs under \p SrcRoot (an absolute directory;
/// empty: none) are written relative to the base id `%SRCROOT%`, declared in
/// the run's `originalUriBaseIds`, so that code scanning (GitHub's upload)
/// maps results onto the repository's files.
llvm::json::Value toSARIF(const std::vector<SubmissionResult> &Results,
                          llvm::StringRef SrcRoot = "");

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_REPORT_H
