//===- DimExpr.cpp - fuzz the passes' dimension expressions and facts -----===//
//
// Part of atrex. The first line of the input is an `atrex.dims` expression
// ("2*D", "H/128"), evaluated over bound symbols and scanned for its
// symbols; the following lines up to a line "----" are "K=V" bindings; the
// rest is a facts document (--facts JSON).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "atrex/Passes/SemanticWork.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto Parts = atrex::fuzz::splitParts(
      std::string_view(reinterpret_cast<const char *>(Data), Size), 2);
  llvm::StringRef Head(Parts[0].data(), Parts[0].size());
  auto [Expr, BindingText] = Head.split('\n');

  llvm::StringMap<int64_t> Dims = {{"B", 8},           {"T", 7},
                                   {"D", 4096},        {"H", 128},
                                   {"big", INT64_MAX}, {"small", INT64_MIN},
                                   {"zero", 0}};
  auto V = atrex::evaluateDimExpr(Expr, Dims);
  if (!V)
    llvm::consumeError(V.takeError());
  llvm::SmallVector<std::string> Symbols;
  llvm::consumeError(atrex::collectDimSymbols(Expr, Symbols));

  llvm::SmallVector<llvm::StringRef> Lines;
  BindingText.split(Lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> Bindings(Lines.begin(), Lines.end());
  auto B = atrex::parseDimBindings(Bindings);
  if (B) {
    auto W = atrex::evaluateDimExpr(Expr, *B);
    if (!W)
      llvm::consumeError(W.takeError());
  } else {
    llvm::consumeError(B.takeError());
  }

  auto F =
      atrex::Facts::fromJSON(llvm::StringRef(Parts[1].data(), Parts[1].size()));
  if (!F) {
    llvm::consumeError(F.takeError());
    return 0;
  }
  // Facts are materialised at the bound shape of the argument they name.
  const std::vector<int64_t> Shapes[] = {{}, {16}, {4, 3}, {2, 0, 5}};
  for (llvm::StringRef Name : {"x", "indices", "lengths"})
    for (const std::vector<int64_t> &Shape : Shapes) {
      auto Fact = F->get(Name, Shape);
      if (!Fact)
        llvm::consumeError(Fact.takeError());
    }
  return 0;
}
