//===- SuiteConfig.cpp - fuzz the suite configuration and suite readers ---===//
//
// Part of atrex. The input is three files separated by lines "----": a
// suite configuration (suite.yaml), an expanded suite (suite.json) and an
// atrex-weights file. The configuration's operators map a few definition
// shapes to entry shapes and facts; the suite gets its serving-mix and
// trace weights, as `atrex suite build` and `atrex-release pack` do.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Suite/Suite.h"
#include "llvm/Support/Error.h"

#include <cstdint>

using namespace atrex;
using namespace atrex::suite;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto Parts = fuzz::splitParts(
      std::string_view(reinterpret_cast<const char *>(Data), Size), 3);
  std::string Yaml = fuzz::writeScratch("suite.yaml", Parts[0]);
  std::string Json = fuzz::writeScratch("suite.json", Parts[1]);
  std::string Weights = fuzz::writeScratch("weights.json", Parts[2]);

  if (auto C = loadConfig(Yaml)) {
    const Shape Defs[] = {{{"M", 4},
                           {"N", 4096},
                           {"K", 4096},
                           {"T", 7},
                           {"B", 2},
                           {"S", 128},
                           {"H", 32},
                           {"D", 128}},
                          {}};
    for (const OperatorConfig &Op : C->Operators)
      for (const Shape &Def : Defs) {
        auto Entry = entryShape(Op, Def);
        if (!Entry) {
          llvm::consumeError(Entry.takeError());
          continue;
        }
        auto Facts = factsFor(Op, Def, *Entry);
        if (!Facts)
          llvm::consumeError(Facts.takeError());
      }
  } else {
    llvm::consumeError(C.takeError());
  }

  auto S = readSuite(Json, fuzz::scratchDir());
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  (void)suiteWeights(*S);
  (void)S->provenanceStrings();
  (void)toJSON(*S);
  auto W = traceWeights(*S, Weights);
  if (!W)
    llvm::consumeError(W.takeError());
  return 0;
}
