//===- Names.cpp - symbol name normalisation ------------------------------===//

#include "atrex/Lint/Model.h"

using namespace llvm;

std::string atrex::lint::stripTemplateArgs(StringRef Q) {
  std::string Out;
  Out.reserve(Q.size());
  int Depth = 0;
  for (size_t I = 0; I < Q.size(); ++I) {
    char Ch = Q[I];
    // `operator<`, `operator<<`, `operator<=`, `operator<=>`, `operator->`.
    if (Depth == 0 && (Ch == '<' || Ch == '>' || Ch == '=') &&
        StringRef(Out).ends_with("operator")) {
      while (I < Q.size() && StringRef("<>=-").contains(Q[I]))
        Out.push_back(Q[I++]);
      --I;
      continue;
    }
    if (Ch == '<') {
      ++Depth;
      continue;
    }
    if (Ch == '>' && Depth > 0) {
      --Depth;
      continue;
    }
    if (Depth == 0)
      Out.push_back(Ch);
  }
  return Out;
}
