//===- KernelOffDslCheck.cpp - atrex-kernel-off-dsl -----------------------===//
//
// A track names the kernel DSLs it accepts (the policy's `dsl`, or
// `atrex-lint --dsl`): a FlyDSL track is not adopted by a Triton or a CUDA
// kernel, however honest. Every kernel launched from the entry whose DSL is
// known and not accepted is reported at its definition; the finding implies
// fallback (the work runs in code outside the target DSL). Without a `dsl`
// the check says nothing (docs/checks/atrex-kernel-off-dsl.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"
#include "atrex/Lint/Finding.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class KernelOffDslCheck : public LintCheck {
public:
  StringRef name() const override { return checks::KernelOffDsl; }
  void run(CheckContext &Ctx) override {
    if (Ctx.P.Dsls.empty())
      return;
    std::string Accepted;
    for (const std::string &D : Ctx.P.Dsls)
      Accepted += (Accepted.empty() ? "" : " or ") + dslDisplayName(D).str();
    for (const std::string &Key : Ctx.Launched) {
      auto It = Ctx.M.Functions.find(Key);
      if (It == Ctx.M.Functions.end())
        continue;
      const FunctionNode &F = It->second;
      // A kernel whose language the front end could not tell is not judged.
      if (!F.IsKernel || F.Dsl.empty() || is_contained(Ctx.P.Dsls, F.Dsl))
        continue;
      Finding Fd;
      Fd.Check = checks::KernelOffDsl.str();
      Fd.Pos = F.Pos;
      Fd.Symbol = F.Name;
      Fd.Library = dslDisplayName(F.Dsl).str() + " kernel, not the track's DSL";
      Fd.Message = "kernel '" + F.Name + "' is written in " +
                   dslDisplayName(F.Dsl).str() + "; the track accepts " +
                   Accepted + " kernels";
      Fd.CallPath = Ctx.pathTo(&F);
      Ctx.report(std::move(Fd));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createKernelOffDslCheck() {
  return std::make_unique<KernelOffDslCheck>();
}
