//===- PythonFrontend.cpp - fuzz atrex-lint's Python front end ------------===//
//
// Part of atrex. The input is a Python submission: it is parsed with
// tree-sitter (syntax errors listed as atrex-lint reports them) and linted
// as atrex-lint lints a `.py` file, from the model building to the verdict.
// The C++ sources of load_inline/load calls are reconstructed but not
// compiled: the C++ front end is clang's, not fuzzed here.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/PythonFrontend.h"
#include "FuzzUtil.h"
#include "PythonSyntax.h"
#include "atrex/Lint/Analysis.h"
#include "atrex/Lint/Policy.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

using namespace atrex::lint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Source(reinterpret_cast<const char *>(Data), Size);
  auto Tree = python::PySyntaxTree::parse(Source);
  if (!Tree) {
    llvm::consumeError(Tree.takeError());
  } else {
    for (const auto &E : (*Tree)->errors(/*Max=*/50))
      if (E.Line == 0 || E.Message.empty())
        __builtin_trap(); // every syntax error has a line and a message
  }

  std::string Path = atrex::fuzz::writeScratch("submission.py", Source);
  uint64_t Sources = 0;
  SourceParser ParseCxx = [&](llvm::StringRef, llvm::StringRef Content, Model &,
                              std::string &) { Sources += Content.size(); };
  SubmissionResult R =
      lintPythonFile(Path, Policy::getDefault(), AnalysisOptions(), ParseCxx);
  (void)R;
  return 0;
}
