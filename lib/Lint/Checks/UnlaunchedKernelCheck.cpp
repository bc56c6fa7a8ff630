//===- UnlaunchedKernelCheck.cpp - atrex-kernel-unlaunched ----------------===//
//
// A `__global__` function that is defined but never launched from the entry
// point: decoration that makes a delegating submission look like a kernel.
// Templates are judged at the template: launched if any instance is.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class UnlaunchedKernelCheck : public LintCheck {
public:
  StringRef name() const override { return checks::KernelUnlaunched; }
  void run(CheckContext &Ctx) override {
    if (Ctx.M.DeviceModule)
      return; // launches are not in device IR
    for (auto &KV : Ctx.M.Functions) {
      const FunctionNode &F = KV.second;
      if (!F.IsKernel || !F.HasBody || F.IsTemplateInstance)
        continue;
      if (Ctx.Launched.count(F.Key))
        continue;
      Finding Fd;
      Fd.Check = checks::KernelUnlaunched.str();
      Fd.Pos = F.Pos;
      Fd.Symbol = F.Name;
      Fd.Message = F.IsTemplatePattern
                       ? "kernel template '" + F.Name +
                             "' is defined but never launched from the entry"
                       : "kernel '" + F.Name +
                             "' is defined but never launched from the entry";
      Ctx.report(std::move(Fd));
    }
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createUnlaunchedKernelCheck() {
  return std::make_unique<UnlaunchedKernelCheck>();
}
