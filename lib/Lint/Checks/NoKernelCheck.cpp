//===- NoKernelCheck.cpp - atrex-no-kernel --------------------------------===//
//
// The submission launches none of its own kernels from the entry point: it
// defines none, or the ones it defines are never launched (or only under a
// condition that is always false).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class NoKernelCheck : public LintCheck {
public:
  StringRef name() const override { return checks::NoKernel; }
  void run(CheckContext &Ctx) override {
    // A unit that did not compile is `unknown`; what it defines is not known.
    if (!Ctx.M.Errors.empty())
      return;
    unsigned Defined = 0;
    for (auto &KV : Ctx.M.Functions)
      if (KV.second.IsKernel && KV.second.HasBody &&
          !KV.second.IsTemplateInstance)
        ++Defined;
    // Device IR holds kernels but never their (host-side) launches; library
    // code launches them from elsewhere.
    if ((Ctx.M.DeviceModule || Ctx.Mode == AnalysisMode::Library) && Defined)
      return;
    for (const std::string &K : Ctx.Launched) {
      auto It = Ctx.M.Functions.find(K);
      if (It != Ctx.M.Functions.end() && It->second.IsKernel &&
          It->second.HasBody)
        return; // an own kernel is launched
    }
    Finding F;
    F.Check = checks::NoKernel.str();
    // Anchor at the first entry, else at the first file.
    // Prefer an entry the submission wrote over one a binding macro made.
    for (bool AcceptGenerated : {false, true}) {
      for (const FunctionNode *E : Ctx.Entries) {
        if (E->Key == staticInitKey() || !E->Pos.isValid())
          continue;
        if (!AcceptGenerated && StringRef(E->Name).starts_with("PyInit_"))
          continue;
        F.Pos = E->Pos;
        F.Symbol = E->Name;
        break;
      }
      if (F.Pos.isValid())
        break;
    }
    if (!F.Pos.isValid() && !Ctx.M.Files.empty())
      F.Pos = {Ctx.M.Files.front(), 1, 1};
    std::string Who = Ctx.Mode == AnalysisMode::Program   ? "program"
                      : Ctx.Mode == AnalysisMode::Library ? "library"
                                                          : "submission";
    if (Defined == 0)
      F.Message = "no kernel is defined: the " + Who +
                  " launches no GPU code of its own";
    else
      F.Message = "none of the " + std::to_string(Defined) + " kernel" +
                  (Defined == 1 ? " " : "s ") +
                  "defined is launched from the entry";
    Ctx.report(std::move(F));
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createNoKernelCheck() {
  return std::make_unique<NoKernelCheck>();
}
