//===- DeadLaunchCheck.cpp - atrex-launch-dead ----------------------------===//
//
// A kernel launch in reachable code that can never execute: under a
// condition that is constant-false (`if (0)`, `if constexpr (false)`, a
// constant flag), after a `return`, or in a loop that never runs.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class DeadLaunchCheck : public LintCheck {
public:
  StringRef name() const override { return checks::LaunchDead; }
  void run(CheckContext &Ctx) override {
    for (const ReachedSite &RS : Ctx.Sites) {
      const Site &S = *RS.S;
      if (S.Kind != SiteKind::Launch || !S.Dead)
        continue;
      Finding F;
      F.Check = checks::LaunchDead.str();
      F.Pos = S.Pos;
      F.Symbol = S.Name;
      F.CallPath = Ctx.pathTo(RS.Holder);
      F.Message = "launch of kernel '" + S.Name +
                  "' never executes (constant-false condition or "
                  "unreachable code)";
      Ctx.report(std::move(F));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createDeadLaunchCheck() {
  return std::make_unique<DeadLaunchCheck>();
}
