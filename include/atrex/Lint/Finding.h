//===- Finding.h - atrex-lint findings and verdicts -------------*- C++ -*-===//
//
// Part of atrex. The data model shared by the analysis (AST, IR) and the
// report writers: positions, findings, kernels and per-submission verdicts.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_FINDING_H
#define ATREX_LINT_FINDING_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace atrex {
namespace lint {

/// Verdicts, ordered by precedence (a higher value wins when several apply,
/// except Unknown, see combineVerdict).
enum class Verdict { Adopted, NoKernel, Unknown, Fallback, Suspicious };

llvm::StringRef verdictName(Verdict V);
std::optional<Verdict> parseVerdict(llvm::StringRef Name);

/// Severity of a check. `Off` drops its findings; `Note` reports them without
/// changing the verdict; `Warning` and `Error` change it.
enum class Severity { Off, Note, Warning, Error };

llvm::StringRef severityName(Severity S);
std::optional<Severity> parseSeverity(llvm::StringRef Name);

/// What the analysed code is, which decides what its entry is and which
/// checks apply (docs/atrex-lint.md, "Analysis modes"):
/// - Submission: a harness calls the entry (a torch-extension function,
///   KernelBench `ModelNew.forward`, GPU MODE `custom_kernel`); every check.
/// - Program: the entry is `main` (samples, benchmarks, tests); exiting,
///   printing, files, threads and the environment are normal; delegation and
///   hidden code still count.
/// - Library: no entry (what a compiler plugin sees in a normal build);
///   every host function is reported on its own, launches are not required.
enum class AnalysisMode { Submission, Program, Library };

llvm::StringRef modeName(AnalysisMode M);
std::optional<AnalysisMode> parseMode(llvm::StringRef Name);

/// A position in a source file (1-based line and column; 0 when unknown).
struct SourcePos {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  bool isValid() const { return !File.empty() && Line != 0; }
  std::string str() const;
};

/// An extra location attached to a finding (clang's notes).
struct FindingNote {
  SourcePos Pos;
  std::string Message;
};

struct Finding {
  std::string Check; ///< e.g. "atrex-delegation-vendor"
  Severity Sev = Severity::Warning;
  std::string Message; ///< lower-case, no trailing period
  SourcePos Pos;
  std::string Library; ///< delegation / evasion category ("cuBLAS", "dlopen")
  std::string Symbol;  ///< the callee or symbol at fault
  std::vector<std::string> CallPath; ///< entry first, function holding Pos last
  std::vector<FindingNote> Notes;

  /// The verdict this finding implies when its severity is Warning or Error.
  Verdict implied() const;
};

/// One `__global__` function (one per template instantiation).
struct KernelInfo {
  std::string Name;
  SourcePos Pos;
  bool Launched = false;
  bool TemplateInstance = false;
  std::string Dsl; ///< the kernel's language (Dsls.def), "" unknown
};

/// The message name of the kernel DSL \p Name (Dsls.def: "flydsl" ->
/// "FlyDSL"); "" when \p Name is not a known DSL.
llvm::StringRef dslDisplayName(llvm::StringRef Name);
/// The kind of submission file \p Name is written in (Dsls.def's SOURCE:
/// cuda, hip, python, ir); "" when \p Name is not a known DSL.
llvm::StringRef dslSourceKind(llvm::StringRef Name);
/// The names of Dsls.def, comma-separated (for error messages).
std::string knownDslNames();

/// The result for one submission (one input file, or a group of files).
struct SubmissionResult {
  std::string Path;               ///< the file, or the submission's name
  std::vector<std::string> Files; ///< every translation unit analysed
  Verdict V = Verdict::Unknown;
  std::vector<std::string> Reasons;
  std::vector<Finding> Findings;
  std::vector<KernelInfo> Kernels;
  std::vector<std::string> Entries;
  /// Compiler errors (already rendered); non-empty makes the verdict Unknown
  /// unless stronger evidence (fallback, suspicious) was found.
  std::vector<std::string> Errors;
  /// The text diagnostics (clang-style) as rendered during the analysis.
  std::string Rendered;
  double Seconds = 0;
  /// False for device IR: kernels are visible, their launches are not.
  bool LaunchesVisible = true;
  /// The analysis mode and why it was chosen ("it defines 'main'").
  AnalysisMode Mode = AnalysisMode::Submission;
  std::string ModeReason;
};

/// The note that says which analysis mode was chosen and why.
std::string modeNote(const SubmissionResult &R);

/// Computes the verdict and its reasons from findings, kernels and errors.
void decideVerdict(SubmissionResult &R);

/// Exit status of atrex-lint for a verdict (documented in docs/atrex-lint.md).
int exitCodeFor(Verdict V);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_FINDING_H
