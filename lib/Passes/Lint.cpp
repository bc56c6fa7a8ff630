//===- Lint.cpp - atrex-lint checks on MLIR GPU modules -------------------===//
//
// Part of atrex. The `atrex-lint` pass: the MLIR front end
// (include/atrex/Lint/MLIRModel.h, lib/Lint/Frontend/MLIR) builds the lint
// model of the module, atrex-lint's checks run on it, and the findings and
// the verdict become diagnostics and the module's `atrex.verdict`.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/MLIRModel.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Report.h"
#include "atrex/Passes/Passes.h"
#include "atrex/Support/JSONFile.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace atrex {
#define GEN_PASS_DEF_ATREXLINT
#include "atrex/Passes/Passes.h.inc"
} // namespace atrex

using namespace mlir;
using namespace atrex::lint;

namespace atrex {
namespace {

struct AtrexLintPass : impl::AtrexLintBase<AtrexLintPass> {
  using AtrexLintBase::AtrexLintBase;

  void runOnOperation() override {
    ModuleOp Module = getOperation();
    Policy P = Policy::getDefault();
    if (!policyFile.empty()) {
      llvm::Expected<Policy> Loaded = Policy::loadFile(policyFile);
      if (!Loaded) {
        Module.emitError() << llvm::toString(Loaded.takeError());
        return signalPassFailure();
      }
      P = std::move(*Loaded);
    }

    Model M = buildModelFromMLIR(Module);

    AnalysisOptions Opts;
    Opts.Entries.assign(entries.begin(), entries.end());
    SubmissionResult R = analyze(M, P, Opts);
    R.Path = M.Files.front();

    MLIRContext *Ctx = &getContext();
    auto LocOf = [&](const lint::SourcePos &Pos) -> Location {
      if (!Pos.isValid())
        return Module.getLoc();
      return FileLineColLoc::get(Ctx, Pos.File, Pos.Line, Pos.Column);
    };
    for (const Finding &F : R.Findings) {
      std::string Msg = F.Message + " [" + F.Check + "]";
      if (F.CallPath.size() > 1) {
        Msg += " (reached from entry";
        for (size_t I = 0; I < F.CallPath.size(); ++I)
          Msg += (I ? " -> '" : " '") + F.CallPath[I] + "'";
        Msg += ")";
      }
      if (F.Sev >= Severity::Warning)
        emitWarning(LocOf(F.Pos)) << Msg;
      else
        emitRemark(LocOf(F.Pos)) << Msg;
    }
    std::string Verdict = "atrex verdict: " + verdictName(R.V).str();
    for (size_t I = 0; I < R.Reasons.size(); ++I)
      Verdict += (I ? "; " : " (") + R.Reasons[I];
    if (!R.Reasons.empty())
      Verdict += ")";
    emitRemark(Module.getLoc()) << Verdict;
    Module->setAttr("atrex.verdict", StringAttr::get(Ctx, verdictName(R.V)));

    if (!jsonOutput.empty())
      if (llvm::Error Err = writeJSONFile(jsonOutput, toJSON({R}))) {
        Module.emitError() << "atrex-lint: " << llvm::toString(std::move(Err));
        return signalPassFailure();
      }
  }
};

} // namespace
} // namespace atrex
