//===- KernelNoMultiplyAddCheck.cpp - atrex-kernel-no-multiply-add -------===//
//
// A GEMM-family operator (kb/families.yaml, given with --operator) whose
// launched kernels execute no multiply-add: no MFMA, FMA or dot instruction
// and no fp multiply beside an fp add in their code objects. The facts come
// from the FlyDSL IR evidence (lib/Lint/Frontend/FlyDSL/FlyDSLTrace.cpp,
// which reports the finding after its trace); the model holds no device
// instructions, so this class has nothing to walk
// (docs/checks/atrex-kernel-no-multiply-add.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class KernelNoMultiplyAddCheck : public LintCheck {
public:
  StringRef name() const override { return checks::KernelNoMultiplyAdd; }
  void run(CheckContext &) override {}
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createKernelNoMultiplyAddCheck() {
  return std::make_unique<KernelNoMultiplyAddCheck>();
}
