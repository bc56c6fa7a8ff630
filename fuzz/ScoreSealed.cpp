//===- ScoreSealed.cpp - fuzz the sealed-bundle readers and verifiers -----===//
//
// Part of atrex. The input is four files separated by lines "----":
// sealed.json, weights.json, public.json and a gate results file. The
// bundle is loaded and its commitment verified as atrex-score does, then
// scored over the results and rendered in every report format; the same
// three files are checked by atrex-release's verifier.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Score/Report.h"
#include "atrex/Score/Results.h"
#include "atrex/Score/Score.h"
#include "atrex/Score/Sealed.h"
#include "atrex/Suite/Release.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace atrex;
using namespace atrex::score;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::string Dir = [] {
    std::string D = fuzz::scratchDir();
    std::string Cmd = "mkdir -p '" + D + "/public' '" + D + "/sealed'";
    if (std::system(Cmd.c_str()) != 0)
      std::abort();
    return D;
  }();
  auto Parts = fuzz::splitParts(
      std::string_view(reinterpret_cast<const char *>(Data), Size), 4);
  std::string Sealed = fuzz::writeScratch("sealed/sealed.json", Parts[0]);
  std::string Weights = fuzz::writeScratch("sealed/weights.json", Parts[1]);
  std::string Public = fuzz::writeScratch("public/public.json", Parts[2]);

  llvm::consumeError(release::verify(Dir + "/public", Dir + "/sealed"));

  auto B = loadSealedBundle(Sealed, Weights);
  if (!B) {
    llvm::consumeError(B.takeError());
    return 0;
  }
  llvm::consumeError(verifyPublicCommitment(*B, Public));

  SubmissionSet Set;
  Set.Name = "fuzz";
  Set.ResultFiles.push_back("results.jsonl");
  ResultsFile F = parseResults(
      "results.jsonl", llvm::StringRef(Parts[3].data(), Parts[3].size()));
  Set.Results = std::move(F.Results);
  SubmissionSet Baseline;
  Baseline.Name = "baseline";
  Baseline.Baseline = true;
  Baseline.Results = Set.Results;
  SubmissionSet Sets[] = {std::move(Set), std::move(Baseline)};
  for (bool MeasuredOnly : {false, true}) {
    ScoreOptions Opts;
    Opts.MeasuredOnly = MeasuredOnly;
    auto R = computeScores(*B, Sets, Opts);
    if (!R) {
      llvm::consumeError(R.takeError());
      continue;
    }
    llvm::raw_null_ostream OS;
    printText(OS, *R);
    printMarkdown(OS, *R);
    printHTML(OS, *R);
    OS << toJSON(*R);
  }
  return 0;
}
