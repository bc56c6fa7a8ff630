//===- atrex-optable.cpp - the runtime's operator table from MLIR ---------===//
//
// Reads the entry point of every operator definition of a folder (the
// definitions' arguments, results and `atrex.entry`, docs/contributing.md)
// and writes the plain C++ table the runtime includes:
//
//   atrex-optable [--ops suites/atrex-serve/ops] [-o
//   runtime/lib/support/OpTable.inc]
//
// The runtime builds without LLVM, so the table is committed; the build's
// `update-optable` target rewrites it and test/suite/optable.test fails when
// it is stale.
//
//===----------------------------------------------------------------------===//

#include "atrex/Roofline/OperatorLibrary.h"
#include "atrex/Suite/OpTable.h"
#include "atrex/Support/DataPath.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::OptionCategory ToolCat("atrex-optable options");
static cl::opt<std::string>
    OpsDir(cl::cat(ToolCat), "ops",
           cl::desc("Folder of operator definitions (*.mlir)"),
           cl::init("suites/atrex-serve/ops"));
static cl::opt<std::string> Output(cl::cat(ToolCat), "o",
                                   cl::desc("Output file ('-' for stdout)"),
                                   cl::value_desc("file"), cl::init("-"));

int main(int argc, char **argv) {
  llvm::InitLLVM Init(argc, argv);
  cl::HideUnrelatedOptions(ToolCat);
  cl::ParseCommandLineOptions(argc, argv, "atrex operator-table generator\n");
  std::string Dir = atrex::dataPath(OpsDir, ATREX_SOURCE_DIR, argv[0]);
  auto Lib = atrex::OperatorLibrary::load(Dir);
  if (!Lib) {
    llvm::errs() << "atrex-optable: error: " << llvm::toString(Lib.takeError())
                 << "\n";
    return 1;
  }
  auto Entries = atrex::readOperatorEntries(**Lib);
  if (!Entries) {
    llvm::errs() << atrex::locatedErrorToString(Entries.takeError()) << "\n";
    return 1;
  }
  // Name the folder relative to the source tree, so that the table does not
  // depend on where the checkout lives.
  llvm::SmallString<256> Abs(Dir), Root(ATREX_SOURCE_DIR);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  llvm::StringRef Source = Abs;
  if (!Source.consume_front((Root + "/").str()))
    Source = Dir;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  atrex::writeOpTable(*Entries, Source, OS);
  if (Output == "-") {
    llvm::outs() << Text;
    return 0;
  }
  std::error_code EC;
  llvm::raw_fd_ostream File(Output, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "atrex-optable: error: cannot write '" << Output
                 << "': " << EC.message() << "\n";
    return 1;
  }
  File << Text;
  return 0;
}
