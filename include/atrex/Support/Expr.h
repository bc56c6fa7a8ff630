//===- Expr.h - the one integer-expression language of atrex ----*- C++ -*-===//
//
// Part of atrex. Dimension expressions of the operator definitions
// (`atrex.dims`: "T", "2*D", "H/128") and the integer expressions of suite
// configurations (shape values, call counts, constraints) are one language
// with two grammars: integers, names, + - * /, parentheses with the usual
// precedence; the suite's grammar adds unary minus, % and comparisons
// (== != < <= > >=, 1 or 0) and divides with floor, the dimensions' grammar
// divides exactly (a remainder is an error). Overflow is an error in both;
// nesting is bounded (256 levels).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_EXPR_H
#define ATREX_SUPPORT_EXPR_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace atrex::expr {

enum class Division {
  Exact, ///< a remainder is an error ("100 is not divisible by 128")
  Floor, ///< floor division, floored % (division by zero is an error)
};

/// Which operators an expression may use, and how its errors start
/// ("<What> '<text>': <message>").
struct Grammar {
  bool UnaryMinus = false, Modulo = false, Comparisons = false;
  Division Div = Division::Exact;
  llvm::StringRef What = "expression";
};

/// `atrex.dims`: + - * exact /, no unary minus.
inline constexpr Grammar DimGrammar{false, false, false, Division::Exact,
                                    "invalid dimension expression"};
/// Suite configurations: everything, floor division.
inline constexpr Grammar SuiteGrammar{true, true, true, Division::Floor,
                                      "expression"};

/// A name's value, or the error an unbound name is (the caller's wording).
using Lookup =
    llvm::function_ref<llvm::Expected<int64_t>(llvm::StringRef Name)>;

/// Evaluates `Text` under `G`, names through `L`.
llvm::Expected<int64_t> evaluate(llvm::StringRef Text, const Grammar &G,
                                 Lookup L);

/// Appends the names `Text` uses to `Names` (in order, repeats kept). Syntax
/// errors are evaluate's; arithmetic on names is not done (they count as 1).
llvm::Error collectNames(llvm::StringRef Text, const Grammar &G,
                         llvm::SmallVectorImpl<std::string> &Names);

} // namespace atrex::expr

#endif // ATREX_SUPPORT_EXPR_H
