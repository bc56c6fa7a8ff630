//===- AtrexIR.cpp - atrex-lint as an LLVM pass plugin --------------------===//
//
// Part of atrex. The `atrex-lint` module pass builds the lint model from IR
// and runs the same checks and policy as atrex-lint:
//
//   opt-22 -load-pass-plugin=AtrexIR.so -passes=atrex-lint -disable-output k.ll
//   clang++-22 -fpass-plugin=AtrexIR.so -c k.cu     (runs at pipeline start)
//
// Options: -atrex-policy=FILE, -atrex-entry=NAME[,NAME],
// -atrex-format=text|json. Diagnostics go to stderr; the pass never changes the
// module.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/IRModel.h"
#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Report.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace atrex::lint;

static cl::opt<std::string> PolicyFile("atrex-policy",
                                       cl::desc("atrex-lint policy file"));
static cl::list<std::string> Entries("atrex-entry", cl::CommaSeparated,
                                     cl::desc("atrex-lint entry points"));
static cl::opt<std::string> Format("atrex-format", cl::init("text"),
                                   cl::desc("atrex-lint report: text or json"));

namespace {
struct AtrexLintPass : PassInfoMixin<AtrexLintPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    Policy P = Policy::getDefault();
    if (!PolicyFile.empty()) {
      Expected<Policy> Loaded = Policy::loadFile(PolicyFile);
      if (!Loaded) {
        errs() << "atrex-lint: error: " << toString(Loaded.takeError()) << "\n";
        return PreservedAnalyses::all();
      }
      P = std::move(*Loaded);
    }
    AnalysisOptions Opts;
    Opts.Entries.assign(Entries.begin(), Entries.end());
    Model Mod = buildModelFromIR(M, P);
    SubmissionResult R = analyze(Mod, P, Opts);
    R.Path = M.getSourceFileName();
    if (Format == "json") {
      errs() << formatv("{0:2}", toJSON({R})) << "\n";
    } else {
      writePlainText({R}, /*Inventory=*/true, errs());
    }
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "atrex-lint", "0.1.0", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "atrex-lint")
                    return false;
                  MPM.addPass(AtrexLintPass());
                  return true;
                });
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(AtrexLintPass());
                });
          }};
}
