//===- SuiteExpr.cpp - fuzz the suite configuration's expressions ---------===//
//
// Part of atrex. The input is one integer expression of suite.yaml (shape
// values, call counts, constraints), evaluated over a few bound names.
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/Expr.h"
#include "llvm/Support/Error.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const atrex::suite::Vars V = {{"B", 8},
                                       {"S", 4096},
                                       {"T", 1},
                                       {"H", 32},
                                       {"D", 128},
                                       {"big", INT64_MAX},
                                       {"small", INT64_MIN},
                                       {"zero", 0}};
  llvm::StringRef Expr(reinterpret_cast<const char *>(Data), Size);
  auto R = atrex::suite::evaluate(Expr, V);
  if (!R)
    llvm::consumeError(R.takeError());
  return 0;
}
