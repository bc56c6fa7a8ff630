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
  StringRef Text, Rest;
  const Vars &V;

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
      if (Op == '/')
        Value = divideFloorSigned(Value, *R);
      else
        Value = Value - divideFloorSigned(Value, *R) * *R;
    }
  }

  Expected<int64_t> unary() {
    if (consume("-")) {
      auto Value = unary();
      if (!Value)
        return Value;
      return -*Value;
    }
    return primary();
  }

  Expected<int64_t> primary() {
    skipSpace();
    if (consume("(")) {
      auto Value = comparison();
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
