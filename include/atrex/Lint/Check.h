//===- Check.h - the check interface of atrex-lint --------------*- C++ -*-===//
//
// Part of atrex. Like clang-tidy, one check is one class. Checks run on the
// reachability of the submission model, not on the AST, so the stand-alone
// tool, the clang plugin and the IR analysis share them.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_CHECK_H
#define ATREX_LINT_CHECK_H

#include "atrex/Lint/Checks.h"
#include "atrex/Lint/Model.h"
#include "atrex/Lint/Policy.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <set>

namespace atrex {
namespace lint {

/// A site reached from an entry, with the function that holds it.
struct ReachedSite {
  const Site *S;
  const FunctionNode *Holder;
};

/// What every check sees: the model, the policy, what is reachable from the
/// entries and how, and the sink for findings.
class CheckContext {
public:
  CheckContext(const Model &M, const Policy &P,
               AnalysisMode Mode = AnalysisMode::Submission)
      : M(M), P(P), Mode(Mode) {}

  const Model &M;
  const Policy &P;
  /// Decides the entries (computeReachability) and which checks report
  /// (report drops the findings of checks that do not apply in it).
  AnalysisMode Mode;
  std::vector<const FunctionNode *> Entries;
  std::vector<const FunctionNode *> Reachable; ///< in BFS order
  std::vector<ReachedSite> Sites;              ///< live and dead sites
  std::set<std::string> Launched;              ///< kernel keys

  /// The user function a site calls into, or nullptr (external callee).
  const FunctionNode *target(const Site &S) const;
  /// Names from the entry to \p F.
  std::vector<std::string> pathTo(const FunctionNode *F) const;
  /// Reports a finding under \p Check at the policy's severity (no-op when
  /// off). \p Cap limits the severity (scalar static state is a note).
  void report(Finding F, Severity Cap = Severity::Error);

  std::vector<Finding> Findings;
  llvm::StringMap<const FunctionNode *> Parent;

  void computeReachability(const std::vector<std::string> &EntryNames,
                           std::vector<std::string> &Errors);
};

class LintCheck {
public:
  virtual ~LintCheck() = default;
  virtual llvm::StringRef name() const = 0;
  virtual void run(CheckContext &Ctx) = 0;
};

/// One instance of every check of Checks.def, in its order.
std::vector<std::unique_ptr<LintCheck>> createAllChecks();

// Factories (one file each under lib/Lint/Checks/), named in Checks.def.
std::unique_ptr<LintCheck> createRuleCheck(llvm::StringRef CheckName);
std::unique_ptr<LintCheck> createUnlaunchedKernelCheck();
std::unique_ptr<LintCheck> createNoKernelCheck();
std::unique_ptr<LintCheck> createDeadLaunchCheck();
std::unique_ptr<LintCheck> createRuntimeOverrideCheck();
std::unique_ptr<LintCheck> createStaticStateCheck();
std::unique_ptr<LintCheck> createSideStreamCheck();
std::unique_ptr<LintCheck> createInputWriteCheck();
std::unique_ptr<LintCheck> createIndirectCallCheck();
std::unique_ptr<LintCheck> createReplayCheck();
std::unique_ptr<LintCheck> createKernelNoComputeCheck();
std::unique_ptr<LintCheck> createKernelNoMultiplyAddCheck();
std::unique_ptr<LintCheck> createKernelOffDslCheck();
std::unique_ptr<LintCheck> createFlydslIrCheck();

} // namespace lint
} // namespace atrex

#endif
