//===- IndirectCallCheck.cpp - atrex-evasion-indirect-call ----------------===//
//
// A call (or launch) through a pointer whose target the analysis cannot
// resolve: a pointer from dlsym, a table filled at run time. Its target might
// be anything, so it is reported instead of being silently passed. Pointers
// initialised from known functions (tables, conditionals) are resolved and
// followed instead, and so is a call through a parameter when every call
// of the function passes a function of the submission there (a benchmark
// helper `run(launcher, args...)`: the launchers are followed through the
// references the callers make).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
/// Every reached call of \p F passes a function at parameter \p P.
bool resolvedByCallers(const CheckContext &Ctx, const FunctionNode &F, int P) {
  unsigned Calls = 0;
  for (const ReachedSite &RS : Ctx.Sites) {
    const Site &S = *RS.S;
    if (S.Key != F.Key || S.Dead ||
        (S.Kind != SiteKind::Call && S.Kind != SiteKind::Indirect))
      continue;
    ++Calls;
    if (size_t(P) >= S.ArgFuncs.size() || S.ArgFuncs[P].empty())
      return false;
  }
  return Calls > 0;
}

class IndirectCallCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionIndirectCall; }
  void run(CheckContext &Ctx) override {
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Kind != SiteKind::Unresolved || S.Dead)
        continue;
      if (S.ParamIndex >= 0 && resolvedByCallers(Ctx, *RS.Holder, S.ParamIndex))
        continue;
      Finding F;
      F.Check = checks::EvasionIndirectCall.str();
      F.Pos = S.Pos;
      F.Symbol = S.Name;
      F.Library = "indirect call";
      F.CallPath = Ctx.pathTo(RS.Holder);
      F.Message =
          S.Detail + " '" + S.Name + "' whose target cannot be resolved";
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createIndirectCallCheck() {
  return std::make_unique<IndirectCallCheck>();
}
