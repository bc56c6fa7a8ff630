//===- InputWriteCheck.cpp - atrex-evasion-input-write --------------------===//
//
// An entry that overwrites one of its inputs in place and returns something
// else games the harness, which computes the expected result from the inputs
// after the call. The Python front end records the facts (which names are the
// harness's inputs, what is written, what is returned) and reports them
// (lib/Lint/Frontend/Python/PythonChecks.cpp). The C++ model has no facts about
// what an entry returns yet, so for C++ sources this check reports nothing; the
// gate's bitwise comparison of inputs after each call catches it at run time
// (docs/checks/atrex-evasion-input-write.md).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Check.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class InputWriteCheck : public LintCheck {
public:
  StringRef name() const override { return checks::EvasionInputWrite; }
  void run(CheckContext &) override {}
};
} // namespace

std::unique_ptr<LintCheck> atrex::lint::createInputWriteCheck() {
  return std::make_unique<InputWriteCheck>();
}
