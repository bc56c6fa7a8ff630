//===- StaticStateCheck.cpp - atrex-evasion-static-state ------------------===//
//
// Mutable state that survives between calls of the entry: function-local
// statics and globals used by reachable code. State that can hold results
// (tensors, containers, pointers) is how outputs get cached across calls;
// scalar state (a flag, a device count) is reported as a note only.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class StaticStateCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionStaticState; }

  void run(CheckContext &Ctx) override {
    StringSet<> Done;
    for (const FunctionNode *F : Ctx.Reachable) {
      for (const StateVar &V : F->StaticLocals)
        report(Ctx, V, F, "static local");
      for (const std::string &G : F->GlobalRefs) {
        auto It = Ctx.M.Globals.find(G);
        if (It == Ctx.M.Globals.end() || It->second.State.Name.empty())
          continue;
        if (!Done.insert(G).second)
          continue;
        report(Ctx, It->second.State, F,
               It->second.State.Device ? "device global" : "global");
      }
    }
  }

private:
  void report(CheckContext &Ctx, const StateVar &V, const FunctionNode *F,
              StringRef What) {
    Finding Fd;
    Fd.Check = checks::EvasionStaticState.str();
    Fd.Pos = V.Pos;
    Fd.Symbol = V.Name;
    Fd.CallPath = Ctx.pathTo(F);
    Fd.Library = "static state";
    Fd.Message = (What + " '" + V.Name + "' of type '" + V.Type +
                  "' keeps state between calls of the entry")
                     .str();
    bool Risky = V.Risky && !V.Device;
    if (Risky)
      Fd.Message += " and can cache outputs";
    Ctx.report(std::move(Fd), Risky ? Severity::Error : Severity::Note);
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createStaticStateCheck() {
  return std::make_unique<StaticStateCheck>();
}
