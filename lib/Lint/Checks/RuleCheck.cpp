//===- RuleCheck.cpp - policy-rule driven checks --------------------------===//
//
// atrex-delegation-torch, atrex-delegation-vendor and the evasion checks that
// are lists of symbols (dynamic-load, module-load, runtime-compile, process,
// file-env, harness-io) and the glue notes (atrex-glue-torch) share this
// class: every live site reached from the entry whose
// callee is not the submission's own code is matched against the policy's
// rules; the first matching rule decides, and reports under its check.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"
#include "atrex/Lint/Checks.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class RuleCheck : public LintCheck {
public:
  explicit RuleCheck(StringRef Name) : Name(Name.str()) {}
  StringRef name() const override { return Name; }

  void run(CheckContext &Ctx) override {
    // Evidence from the text of a file that did not compile.
    for (const Finding &F : Ctx.M.TextEvidence)
      if (F.Check == Name)
        Ctx.report(F);
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Dead)
        continue;
      if (S.Kind == SiteKind::Unresolved)
        continue;
      if (Ctx.target(S))
        continue; // the submission's own code: followed, not matched
      const SymbolRule *R = Ctx.P.match(S.Name, S.DeclFile, S.Device);
      // A launch of a library's own kernel (a __global__ template of a
      // header library on a system path, e.g. FlashInfer's
      // act_and_mul_kernel<<<...>>>) is judged like a call of it, by
      // delegation rules only: a launch is never glue or evasion by name.
      if (S.Kind == SiteKind::Launch &&
          (!R || R->Action != RuleAction::Delegate))
        continue;
      // Allowed glue reports (as a note, by default) when its rule names a
      // check; other allowed symbols are silent.
      if (!R || R->Check != Name)
        continue;
      // The project's own function whose body could not be followed (a
      // template the parse never instantiated): a library's name pattern
      // (flashinfer::*) does not make the library's own code delegation.
      if (R->Action == RuleAction::Delegate && S.ProjectDefined)
        continue;
      if (R->exceptsCall(S.IntArg0, S.Arg0Decl, S.Arg0Failure))
        continue;
      // A driver entry point fetched by its literal name is that function,
      // known statically: only what the policy says of it counts.
      if (R->JudgeNamedSymbol && !S.NamedSymbol.empty()) {
        const SymbolRule *N = Ctx.P.match(S.NamedSymbol, "", S.Device);
        if (!N || N->Action == RuleAction::Allow)
          continue;
      }
      Finding F;
      F.Check = Name;
      F.Pos = S.Pos;
      F.Library = R->Library;
      F.Symbol = S.Name;
      F.CallPath = Ctx.pathTo(RS.Holder);
      F.Message = describe(S, *R);
      if (!S.Macro.empty())
        F.Notes.push_back(
            {S.MacroPos, "expanded from macro '" + S.Macro + "'"});
      Ctx.report(std::move(F));
    }
  }

private:
  static std::string verb(const Site &S) {
    switch (S.Kind) {
    case SiteKind::Construct:
      return "construction of '" + S.Name + "'";
    case SiteKind::Ref:
      return "reference to '" + S.Name + "'";
    case SiteKind::VarRef:
      return "use of '" + S.Name + "'";
    case SiteKind::Launch:
      return "launch of '" + S.Name + "'";
    default:
      return "call to '" + S.Name + "'";
    }
  }

  std::string describe(const Site &S, const SymbolRule &R) const {
    std::string M = verb(S);
    if (R.Action == RuleAction::Delegate)
      M += " delegates compute to " + R.Library;
    else if (const CheckInfo *C = findCheck(Name); C && !C->Phrase.empty())
      M += " " + C->Phrase.str();
    else
      M += " matches policy rule '" + R.Id + "'";
    if (R.Action == RuleAction::Allow && !R.Library.empty())
      M += " (" + R.Library + ")";
    if (!S.Detail.empty())
      M += " (" + S.Detail + ")";
    if (!R.Message.empty())
      M += ": " + R.Message;
    return M;
  }

  std::string Name;
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createRuleCheck(StringRef Name) {
  return std::make_unique<RuleCheck>(Name);
}
