//===- SideStreamCheck.cpp - atrex-evasion-side-stream --------------------===//
//
// Streams created (or taken from a pool) by reachable code while nothing
// reachable ever joins them back (synchronize, wait on an event, destroy):
// work queued there escapes timers that only watch the caller's stream.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class SideStreamCheck : public LintCheck {
public:
  StringRef name() const override { return "atrex-evasion-side-stream"; }
  void run(CheckContext &Ctx) override {
    std::vector<const ReachedSite *> Creates;
    bool Joined = false;
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Dead || S.Kind == SiteKind::Launch || Ctx.target(S))
        continue;
      if (Ctx.P.isStreamCreate(S.Name))
        Creates.push_back(&RS);
      if (Ctx.P.isStreamJoin(S.Name))
        Joined = true;
    }
    if (Joined)
      return;
    for (const ReachedSite *RS : Creates) {
      Finding F;
      F.Check = "atrex-evasion-side-stream";
      F.Pos = RS->S->Pos;
      F.Symbol = RS->S->Name;
      F.Library = "side stream";
      F.CallPath = Ctx.pathTo(RS->Holder);
      F.Message = "stream created by '" + RS->S->Name +
                  "' is never joined back (no synchronize, event wait or "
                  "destroy is reachable): its work can escape the timer";
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createSideStreamCheck() {
  return std::make_unique<SideStreamCheck>();
}
