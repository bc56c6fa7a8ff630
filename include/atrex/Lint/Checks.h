//===- Checks.h - the registry of atrex-lint checks -------------*- C++ -*-===//
//
// Part of atrex. What is known about every check, derived from the one list
// in Checks.def: its name, summary, implied verdict, default severity and
// the analysis modes it applies in. The policy, the verdict, --list-checks,
// SARIF rules and the check runner all read this registry.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_CHECKS_H
#define ATREX_LINT_CHECKS_H

#include "atrex/Lint/Finding.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace atrex {
namespace lint {

/// Bit set of the modes a check applies in.
enum ModeMask : unsigned {
  ModeSubmission = 1u << unsigned(AnalysisMode::Submission),
  ModeProgram = 1u << unsigned(AnalysisMode::Program),
  ModeLibrary = 1u << unsigned(AnalysisMode::Library),
};

struct CheckInfo {
  llvm::StringRef Name;
  llvm::StringRef Summary;
  Verdict Implies;        ///< when reported as a warning or an error
  Severity Default;       ///< when the policy says nothing
  unsigned Modes;         ///< ModeMask bits
  bool Rule;              ///< a list of symbols in the policy's rules
  llvm::StringRef Phrase; ///< rule checks: "call to 'f' <Phrase>"

  bool appliesIn(AnalysisMode M) const { return Modes & (1u << unsigned(M)); }
};

/// Every check's name as a constant (checks::NoKernel is "atrex-no-kernel"),
/// from Checks.def: the one spelling of each name.
namespace checks {
#define ATREX_RULE_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, PHRASE)       \
  inline constexpr llvm::StringLiteral ID = NAME;
#define ATREX_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, FACTORY)           \
  inline constexpr llvm::StringLiteral ID = NAME;
#include "atrex/Lint/Checks.def"
} // namespace checks

/// Every check atrex-lint knows, in registration order.
llvm::ArrayRef<CheckInfo> allChecks();
/// The check of this name, or nullptr.
const CheckInfo *findCheck(llvm::StringRef Name);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_CHECKS_H
