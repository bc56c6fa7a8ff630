//===- IndirectCallCheck.cpp - atrex-evasion-indirect-call ----------------===//
//
// A call (or launch) through a pointer whose target the analysis cannot
// resolve: a pointer from dlsym, a table filled at run time. Its target might
// be anything, so it is reported instead of being silently passed. Pointers
// initialised from known functions (tables, conditionals) are resolved and
// followed instead.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class IndirectCallCheck : public LintCheck {
public:
  StringRef name() const override { return "atrex-evasion-indirect-call"; }
  void run(CheckContext &Ctx) override {
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Kind != SiteKind::Unresolved || S.Dead)
        continue;
      Finding F;
      F.Check = "atrex-evasion-indirect-call";
      F.Pos = S.Pos;
      F.Symbol = S.Name;
      F.Library = "indirect call";
      F.CallPath = Ctx.pathTo(RS.Holder);
      F.Message = S.Detail + " '" + S.Name +
                  "' whose target cannot be resolved";
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createIndirectCallCheck() {
  return std::make_unique<IndirectCallCheck>();
}
