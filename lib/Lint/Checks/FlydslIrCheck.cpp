//===- FlydslIrCheck.cpp - atrex-flydsl-ir --------------------------------===//
//
// The IR evidence of a FlyDSL submission: which kernels its entry launched in
// a compile-only trace and the device work of each (the final host stage's
// gpu.launch_func ops, the AMDGPU code object's instructions). The notes come
// from the trace, not from the model: lib/Lint/Frontend/FlyDSL/FlyDSLTrace.cpp
// reports them after the static analysis (docs/checks/atrex-flydsl-ir.md), so
// this class has nothing to walk.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class FlydslIrCheck : public LintCheck {
public:
  StringRef name() const override { return checks::FlydslIr; }
  void run(CheckContext &) override {}
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createFlydslIrCheck() {
  return std::make_unique<FlydslIrCheck>();
}
