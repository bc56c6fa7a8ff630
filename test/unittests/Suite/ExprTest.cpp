//===- ExprTest.cpp - integer expressions of suite configurations ---------===//

#include "atrex/Suite/Expr.h"

#include "gtest/gtest.h"

using namespace atrex::suite;

namespace {

int64_t eval(llvm::StringRef E, const Vars &V = {}) {
  auto R = evaluate(E, V);
  EXPECT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  return R ? *R : -999;
}

std::string error(llvm::StringRef E, const Vars &V = {}) {
  auto R = evaluate(E, V);
  if (R)
    return "no error";
  return llvm::toString(R.takeError());
}

TEST(Expr, Precedence) {
  EXPECT_EQ(eval("2+3*4"), 14);
  EXPECT_EQ(eval("(2+3)*4"), 20);
  EXPECT_EQ(eval("-2*3"), -6);
  EXPECT_EQ(eval("10-4-3"), 3);
}

TEST(Expr, FloorDivisionAndModulo) {
  EXPECT_EQ(eval("7/2"), 3);
  EXPECT_EQ(eval("-7/2"), -4);
  EXPECT_EQ(eval("7%3"), 1);
  EXPECT_EQ(eval("-7%3"), 2);
  EXPECT_EQ(eval("(L+BS-1)/BS", {{"L", 4097}, {"BS", 16}}), 257);
}

TEST(Expr, Comparisons) {
  Vars V{{"K", 8}, {"E", 128}, {"MB", 4}, {"B", 2}, {"NB", 9}};
  EXPECT_EQ(eval("K <= E", V), 1);
  EXPECT_EQ(eval("K > E", V), 0);
  EXPECT_EQ(eval("NB == B*MB + 1", V), 1);
  EXPECT_EQ(eval("E % K != 0", V), 0);
}

TEST(Expr, Names) {
  EXPECT_EQ(eval("(Hq+2*Hk)*D", {{"Hq", 32}, {"Hk", 8}, {"D", 128}}), 6144);
  EXPECT_EQ(eval("layers_2", {{"layers_2", 3}}), 3);
}

TEST(Expr, Errors) {
  EXPECT_EQ(error("2*layers"), "expression '2*layers': unknown name 'layers'");
  EXPECT_EQ(error("4/0"), "expression '4/0': division by zero");
  EXPECT_EQ(error("(1+2"), "expression '(1+2': missing ')'");
  EXPECT_EQ(error("1+"), "expression '1+': unexpected end");
  EXPECT_EQ(error("1 $ 2"), "expression '1 $ 2': unexpected '$'");
  EXPECT_EQ(error("9223372036854775807+1"),
            "expression '9223372036854775807+1': the value overflows 64 bits");
}

} // namespace
