//===- ScoreResults.cpp - fuzz the score's results and lint readers -------===//
//
// Part of atrex. The input is a gate results file (JSON Lines,
// atrex-gate-result/1) and, after a line "----", an atrex-lint JSON report.
// Every result is matched against the report as atrex-score does.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Score/Results.h"
#include "llvm/Support/Error.h"

#include <cstdint>

using namespace atrex::score;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto Parts = atrex::fuzz::splitParts(
      std::string_view(reinterpret_cast<const char *>(Data), Size), 2);
  llvm::StringRef ResultsText(Parts[0].data(), Parts[0].size());
  llvm::StringRef LintText(Parts[1].data(), Parts[1].size());

  ResultsFile F = parseResults("results.jsonl", ResultsText);
  for (const std::string &E : F.Errors)
    if (!llvm::StringRef(E).starts_with("results.jsonl:"))
      __builtin_trap(); // every error names the file and the line
  for (const GateResult &R : F.Results)
    (void)R.correct();

  auto Lint = parseLintReport("lint.json", LintText);
  if (!Lint) {
    llvm::consumeError(Lint.takeError());
    return 0;
  }
  for (const GateResult &R : F.Results)
    (void)matchLint(*Lint, R);
  return 0;
}
