//===- KernelNoComputeCheck.cpp - atrex-kernel-no-compute ----------------===//
//
// A launched kernel that only moves data (loads, copies, stores; no
// arithmetic, matrix or math operation on what it loads) does none of an
// operator's compute: beside delegated compute it is a decoy (a torch op does
// the work, the kernel copies its result). The Python front end reads the
// bodies of DSL kernels (FlyDSL, Triton) and reports them
// (lib/Lint/Frontend/Python/PythonChecks.cpp). The C++ model records no facts
// about the arithmetic inside a CUDA/HIP kernel yet, so for C++ sources this
// check reports nothing (docs/checks/atrex-kernel-no-compute.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class KernelNoComputeCheck : public LintCheck {
public:
  StringRef name() const override { return checks::KernelNoCompute; }
  void run(CheckContext &) override {}
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createKernelNoComputeCheck() {
  return std::make_unique<KernelNoComputeCheck>();
}
