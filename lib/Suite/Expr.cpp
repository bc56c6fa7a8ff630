//===- Expr.cpp - integer expressions of the suite configuration ----------===//
//
// Part of atrex. The suite's grammar of the one expression language
// (include/atrex/Support/Expr.h, lib/Support/Expr.cpp).
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/Expr.h"

#include "atrex/Support/Expr.h"

using namespace llvm;

namespace atrex::suite {

Expected<int64_t> evaluate(StringRef Expr, const Vars &V) {
  return expr::evaluate(
      Expr, expr::SuiteGrammar, [&](StringRef Name) -> Expected<int64_t> {
        auto It = V.find(Name);
        if (It == V.end())
          return createStringError("expression '" + Expr + "': unknown name '" +
                                   Name + "'");
        return It->second;
      });
}

} // namespace atrex::suite
