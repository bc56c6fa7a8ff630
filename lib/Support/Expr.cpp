//===- Expr.cpp - the one integer-expression language of atrex ------------===//
//
// Part of atrex. A recursive-descent evaluator for both grammars of
// include/atrex/Support/Expr.h; with a name list it only collects names.
//
//===----------------------------------------------------------------------===//

#include "atrex/Support/Expr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace atrex::expr {
namespace {

class Parser {
public:
  Parser(StringRef Text, const Grammar &G, Lookup *L,
         SmallVectorImpl<std::string> *Names)
      : Text(Text), Rest(Text), G(G), L(L), Names(Names) {}

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
  /// Parentheses and unary minus recurse: their nesting is bounded.
  static constexpr unsigned MaxDepth = 256;

  StringRef Text, Rest;
  const Grammar &G;
  Lookup *L;
  SmallVectorImpl<std::string> *Names; // collecting names only
  unsigned Depth = 0;

  Error error(const Twine &Message) {
    return createStringError(G.What + " '" + Text + "': " + Message);
  }
  Error overflow() { return error("the value overflows 64 bits"); }
  bool enter() { return ++Depth <= MaxDepth; }
  Error tooDeep() {
    return error("nested deeper than " + Twine(MaxDepth) + " levels");
  }
  void skipSpace() { Rest = Rest.ltrim(); }
  bool consume(StringRef Token) {
    skipSpace();
    return Rest.consume_front(Token);
  }

  Expected<int64_t> comparison() {
    auto Lhs = additive();
    if (!Lhs || !G.Comparisons)
      return Lhs;
    for (StringRef Op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!consume(Op))
        continue;
      auto Rhs = additive();
      if (!Rhs)
        return Rhs;
      int64_t A = *Lhs, B = *Rhs;
      bool R = Op == "=="   ? A == B
               : Op == "!=" ? A != B
               : Op == "<=" ? A <= B
               : Op == ">=" ? A >= B
               : Op == "<"  ? A < B
                            : A > B;
      return int64_t(R);
    }
    return Lhs;
  }

  Expected<int64_t> additive() {
    auto Lhs = multiplicative();
    if (!Lhs)
      return Lhs;
    int64_t Value = *Lhs;
    while (true) {
      bool Plus = consume("+");
      if (!Plus && !consume("-"))
        return Value;
      auto Rhs = multiplicative();
      if (!Rhs)
        return Rhs;
      std::optional<int64_t> Out =
          Plus ? checkedAdd(Value, *Rhs) : checkedSub(Value, *Rhs);
      if (!Out)
        return overflow();
      Value = *Out;
    }
  }

  Expected<int64_t> multiplicative() {
    auto Lhs = unary();
    if (!Lhs)
      return Lhs;
    int64_t Value = *Lhs;
    while (true) {
      char Op;
      if (consume("*"))
        Op = '*';
      else if (consume("/"))
        Op = '/';
      else if (G.Modulo && consume("%"))
        Op = '%';
      else
        return Value;
      auto Rhs = unary();
      if (!Rhs)
        return Rhs;
      int64_t R = *Rhs;
      if (Op == '*') {
        std::optional<int64_t> Out = checkedMul(Value, R);
        if (!Out)
          return overflow();
        Value = *Out;
        continue;
      }
      if (Names)
        continue; // names count as 1: no division to check
      if (G.Div == Division::Exact) {
        if (Op == '/' && R == -1 && Value == INT64_MIN)
          return overflow();
        if (R == 0 || Value % R != 0)
          return error(Twine(Value) + " is not divisible by " + Twine(R));
        Value /= R;
        continue;
      }
      if (R == 0)
        return error("division by zero");
      if (Op == '/') {
        if (Value == INT64_MIN && R == -1)
          return overflow();
        Value = divideFloorSigned(Value, R);
      } else {
        // The floored remainder, without the product floor(V/R)*R that can
        // overflow (INT64_MIN % 3).
        int64_t M = R == -1 ? 0 : Value % R;
        if (M != 0 && (M < 0) != (R < 0))
          M += R;
        Value = M;
      }
    }
  }

  Expected<int64_t> unary() {
    if (G.UnaryMinus && consume("-")) {
      if (!enter())
        return tooDeep();
      auto Value = unary();
      --Depth;
      if (!Value)
        return Value;
      if (*Value == INT64_MIN)
        return overflow();
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
      if (Names) {
        Names->push_back(Name.str());
        return 1;
      }
      return (*L)(Name);
    }
    if (Rest.empty())
      return error("unexpected end");
    return error("unexpected '" + Rest.substr(0, 1) + "'");
  }
};

} // namespace

Expected<int64_t> evaluate(StringRef Text, const Grammar &G, Lookup L) {
  return Parser(Text, G, &L, nullptr).parse();
}

Error collectNames(StringRef Text, const Grammar &G,
                   SmallVectorImpl<std::string> &Names) {
  Expected<int64_t> V = Parser(Text, G, nullptr, &Names).parse();
  return V ? Error::success() : V.takeError();
}

} // namespace atrex::expr
