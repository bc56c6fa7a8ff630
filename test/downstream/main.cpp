//===- main.cpp - a downstream user of the installed atrex package --------===//
//
// Lints the files on its command line with the installed default policy and
// prints one "<file>: <verdict>" line each.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Driver.h"
#include "atrex/Lint/Policy.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

using namespace atrex::lint;

int main(int argc, char **argv) {
  llvm::ExitOnError Exit("atrex-downstream: ");
  // The installed policy file is the built-in default.
  Policy P = Exit(Policy::loadFile(ATREX_DEFAULT_POLICY_FILE));
  LintOptions Opts;
  for (int I = 1; I < argc; ++I)
    Opts.Files.push_back(argv[I]);
  for (const SubmissionResult &R : Exit(runLint(Opts, P)))
    llvm::outs() << R.Path << ": " << verdictName(R.V) << "\n";
  return 0;
}
