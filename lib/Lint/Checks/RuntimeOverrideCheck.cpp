//===- RuntimeOverrideCheck.cpp - atrex-evasion-runtime-override ----------===//
//
// Definitions (or macros) that replace CUDA/HIP runtime or timing functions,
// e.g. a `cudaEventElapsedTime` that reports a made-up time. These act at
// link or load time, whatever is reachable, so they are always reported.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class RuntimeOverrideCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionRuntimeOverride; }
  void run(CheckContext &Ctx) override {
    for (const Finding &F : Ctx.M.Unconditional)
      if (F.Check == name())
        Ctx.report(F);
  }
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createRuntimeOverrideCheck() {
  return std::make_unique<RuntimeOverrideCheck>();
}
