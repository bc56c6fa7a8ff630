//===- Expr.h - integer expressions of the suite configuration --*- C++ -*-===//
//
// Part of atrex. Shape values, call counts, entry-shape mappings and operator
// constraints of suites/<suite>/suite.yaml are integer expressions: integers,
// names, + - * / (floor division) %, comparisons == != < <= > >= (1 or 0),
// unary minus and parentheses, with the usual precedence.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUITE_EXPR_H
#define ATREX_SUITE_EXPR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace atrex::suite {

/// Names an expression can use.
using Vars = std::map<std::string, int64_t, std::less<>>;

/// Evaluates `Expr` over `V`. Errors: syntax, unknown name, division by zero,
/// overflow.
llvm::Expected<int64_t> evaluate(llvm::StringRef Expr, const Vars &V);

} // namespace atrex::suite

#endif // ATREX_SUITE_EXPR_H
