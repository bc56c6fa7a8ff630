//===- Expr.cpp - integer expressions of the suite configuration ----------===//
//
// Part of atrex. A recursive-descent evaluator; see include/atrex/Suite/Expr.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Suite/Expr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace atrex::suite {
namespace {

class Parser {
public:
  Parser(StringRef Text, const Vars &V) : Text(Text), Rest(Text), V(V) {}

  Expected<int64_t> parse() {
    auto Value = comparison();
    if (!Value)
      return Value.takeError();
    skipSpace();
    if (!Rest.empty())
      return error("unexpected '" + Rest.substr(0, 1) + "'");
    return Value;
  }

private:
  /// Unary minus and parentheses recurse: their nesting is bounded.
  static constexpr unsigned MaxDepth = 256;

  StringRef Text, Rest;
  const Vars &V;
  unsigned Depth = 0;

  /// Counts one level of nesting; false past MaxDepth.
  bool enter() { return ++Depth <= MaxDepth; }
  Error tooDeep() {
    return error("nested deeper than " + Twine(MaxDepth) + " levels");
  }

  Error error(const Twine &Message) {
    return createStringError("expression '" + Text + "': " + Message);
  }
  void skipSpace() { Rest = Rest.ltrim(); }
  bool consume(StringRef Token) {
    skipSpace();
    return Rest.consume_front(Token);
  }

  Expected<int64_t> comparison() {
    auto L = additive();
    if (!L)
      return L;
    for (StringRef Op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!consume(Op))
        continue;
      auto R = additive();
      if (!R)
        return R;
      if (Op == "==")
        return int64_t(*L == *R);
      if (Op == "!=")
        return int64_t(*L != *R);
      if (Op == "<=")
        return int64_t(*L <= *R);
      if (Op == ">=")
        return int64_t(*L >= *R);
      if (Op == "<")
        return int64_t(*L < *R);
      return int64_t(*L > *R);
    }
    return L;
  }

  Expected<int64_t> additive() {
    auto L = multiplicative();
    if (!L)
      return L;
    int64_t Value = *L;
    while (true) {
      bool Plus = consume("+");
      if (!Plus && !consume("-"))
        return Value;
      auto R = multiplicative();
      if (!R)
        return R;
      int64_t Out;
      if (Plus ? AddOverflow(Value, *R, Out) : SubOverflow(Value, *R, Out))
        return error("overflow");
      Value = Out;
    }
  }

  Expected<int64_t> multiplicative() {
    auto L = unary();
    if (!L)
      return L;
    int64_t Value = *L;
    while (true) {
      char Op;
      if (consume("*"))
        Op = '*';
      else if (consume("/"))
        Op = '/';
      else if (consume("%"))
        Op = '%';
      else
        return Value;
      auto R = unary();
      if (!R)
        return R;
      if (Op == '*') {
        int64_t Out;
        if (MulOverflow(Value, *R, Out))
          return error("overflow");
        Value = Out;
        continue;
      }
      if (*R == 0)
        return error("division by zero");
      if (Op == '/') {
        if (Value == INT64_MIN && *R == -1)
          return error("overflow");
        Value = divideFloorSigned(Value, *R);
      } else {
        // The floored remainder, without the product floor(V/R)*R that can
        // overflow (INT64_MIN % 3).
        int64_t M = *R == -1 ? 0 : Value % *R;
        if (M != 0 && (M < 0) != (*R < 0))
          M += *R;
        Value = M;
      }
    }
  }

  Expected<int64_t> unary() {
    if (consume("-")) {
      if (!enter())
        return tooDeep();
      auto Value = unary();
      --Depth;
      if (!Value)
        return Value;
      if (*Value == INT64_MIN)
        return error("overflow");
      return -*Value;
    }
    return primary();
  }

  Expected<int64_t> primary() {
    skipSpace();
    if (consume("(")) {
      if (!enter())
        return tooDeep();
      auto Value = comparison();
      --Depth;
      if (!Value)
        return Value;
      if (!consume(")"))
        return error("missing ')'");
      return Value;
    }
    if (!Rest.empty() && isDigit(Rest.front())) {
      size_t N = 0;
      while (N < Rest.size() && isDigit(Rest[N]))
        ++N;
      int64_t Value;
      if (Rest.substr(0, N).getAsInteger(10, Value))
        return error("integer out of range");
      Rest = Rest.drop_front(N);
      return Value;
    }
    if (!Rest.empty() && (isAlpha(Rest.front()) || Rest.front() == '_')) {
      size_t N = 0;
      while (N < Rest.size() && (isAlnum(Rest[N]) || Rest[N] == '_'))
        ++N;
      StringRef Name = Rest.substr(0, N);
      Rest = Rest.drop_front(N);
      auto It = V.find(Name);
      if (It == V.end())
        return error("unknown name '" + Name + "'");
      return It->second;
    }
    if (Rest.empty())
      return error("unexpected end");
    return error("unexpected '" + Rest.substr(0, 1) + "'");
  }
};

} // namespace

Expected<int64_t> evaluate(StringRef Expr, const Vars &V) {
  return Parser(Expr, V).parse();
}

} // namespace atrex::suite
