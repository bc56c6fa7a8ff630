//===- TestPrintSemanticWork.cpp - print semantic work as text (tests) ----===//
//
// --test-print-semantic-work: the counts of --atrex-semantic-work as text
// lines for FileCheck, without touching the module.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/Passes.h"
#include "atrex/Passes/SemanticWork.h"

#include "llvm/Support/raw_ostream.h"

namespace atrex {
#define GEN_PASS_DEF_ATREXTESTPRINTSEMANTICWORK
#include "atrex/Passes/Passes.h.inc"
} // namespace atrex

using namespace mlir;

namespace atrex {
namespace {

void print(const SemanticWork &work, llvm::raw_ostream &os) {
  os << "semantic work of '" << work.operatorName << "' at {";
  bool first = true;
  for (const auto &[name, value] : work.shape) {
    os << (first ? "" : ", ") << name << " = " << value;
    first = false;
  }
  os << "}\n";
  for (const auto &[engine, dtypes] : work.flops)
    for (const auto &[dtype, flops] : dtypes)
      os << "  " << engine << " " << dtype << ": " << flops << "\n";
  for (const auto &[name, count] : work.special)
    os << "  special " << name << ": " << count << "\n";
  os << "  bytes read: " << work.bytesRead << "\n"
     << "  bytes write: " << work.bytesWritten << "\n";
  for (const ArgumentBytes &arg : work.arguments)
    os << "  argument " << arg.name << " (" << arg.role << ", " << arg.dtype
       << ", " << arg.access << "): " << arg.bytes << " bytes\n";
}

struct TestPrintSemanticWorkPass
    : public impl::AtrexTestPrintSemanticWorkBase<TestPrintSemanticWorkPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Facts facts;
    if (!factsFile.empty()) {
      auto loaded = Facts::fromFile(factsFile);
      if (!loaded) {
        module.emitError() << "test-print-semantic-work: "
                           << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      facts = std::move(*loaded);
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr("atrex.operator"))
        continue;
      auto work = countSemanticWork(func, facts);
      if (!work) {
        emitErrorAsDiagnostic(work.takeError(), func.getLoc());
        return signalPassFailure();
      }
      print(*work, llvm::outs());
    }
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
} // namespace atrex
