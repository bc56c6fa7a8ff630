//===- FuzzRegressionTest.cpp - expression inputs found by fuzzing --------===//
//
// Inputs found by the fuzz targets of the expression parsers (fuzz/DimExpr.cpp,
// fuzz/SuiteExpr.cpp; docs/fuzzing.md). Each was undefined behaviour (signed
// overflow) or unbounded recursion; each is now an error saying what is wrong.
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/SemanticWork.h"
#include "atrex/Suite/Expr.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <string>

namespace {

std::string dimError(llvm::StringRef Expr) {
  llvm::StringMap<int64_t> Dims = {{"big", INT64_MAX}, {"small", INT64_MIN}};
  auto V = atrex::evaluateDimExpr(Expr, Dims);
  if (V)
    return "value " + std::to_string(*V);
  return llvm::toString(V.takeError());
}

TEST(DimExprFuzz, OverflowIsAnError) {
  for (const char *E : {"9223372036854775807*2", "big*2", "big+1", "small-1",
                        "0-small-small", "small/(0-1)", "2*big*0"})
    EXPECT_EQ(dimError(E), std::string("invalid dimension expression '") + E +
                               "': the value overflows 64 bits")
        << E;
  EXPECT_EQ(dimError("big-1+1"), "value 9223372036854775807");
  EXPECT_EQ(dimError("small/1"), "value -9223372036854775808");
}

TEST(DimExprFuzz, NestingIsBounded) {
  std::string Deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_NE(dimError(Deep).find("': nested deeper than 256 levels"),
            std::string::npos);
  std::string Ok = std::string(200, '(') + "1" + std::string(200, ')');
  EXPECT_EQ(dimError(Ok), "value 1");
}

std::string suiteError(llvm::StringRef Expr) {
  atrex::suite::Vars V = {{"big", INT64_MAX}, {"small", INT64_MIN}};
  auto R = atrex::suite::evaluate(Expr, V);
  if (R)
    return "value " + std::to_string(*R);
  return llvm::toString(R.takeError());
}

TEST(SuiteExprFuzz, DivisionOverflowIsAnError) {
  // divideFloorSigned(INT64_MIN, -1) asserted; -INT64_MIN overflowed.
  for (const char *E : {"small / -1", "-small", "--small", "0 - -small"})
    EXPECT_EQ(suiteError(E), std::string("expression '") + E +
                                 "': the value overflows 64 bits")
        << E;
  EXPECT_EQ(suiteError("small % -1"), "value 0");
  // floor(V/R)*R overflowed for INT64_MIN % 3.
  EXPECT_EQ(suiteError("small % 3"), "value 1");
  EXPECT_EQ(suiteError("small % -3"), "value -2");
  EXPECT_EQ(suiteError("big % -2"), "value -1");
  EXPECT_EQ(suiteError("small / 3"), "value -3074457345618258603");
}

TEST(SuiteExprFuzz, NestingIsBounded) {
  for (char C : {'-', '('}) {
    std::string Deep =
        std::string(100000, C) + "1" + std::string(C == '(' ? 100000 : 0, ')');
    EXPECT_NE(suiteError(Deep).find("': nested deeper than 256 levels"),
              std::string::npos);
  }
  EXPECT_EQ(suiteError(std::string(200, '-') + "7"), "value 7");
}

std::string factError(llvm::StringRef Json, llvm::ArrayRef<int64_t> Shape) {
  auto F = atrex::Facts::fromJSON(Json);
  if (!F)
    return llvm::toString(F.takeError());
  auto Fact = F->get("x", Shape);
  if (!Fact)
    return llvm::toString(Fact.takeError());
  std::string Values;
  for (int64_t V : Fact->values)
    Values += std::to_string(V) + " ";
  return Values;
}

TEST(FactsFuzz, IntegersAtTwoToThe63) {
  // llvm::json's getAsInteger converted the double 2^63 to int64_t.
  EXPECT_EQ(factError(R"({"x": [1, 9223372036854775807.2]})", {2}),
            "fact 'x' holds a non-integer element");
  EXPECT_EQ(factError(R"({"x": [1, 9.3e18]})", {2}),
            "fact 'x' holds a non-integer element");
  EXPECT_EQ(
      factError(R"({"x": [9223372036854775807, -9223372036854775808]})", {2}),
      "9223372036854775807 -9223372036854775808 ");
  EXPECT_EQ(factError(R"({"x": [4.0, -2e0]})", {2}), "4 -2 ");
  EXPECT_EQ(factError(R"({"x": {"fill": 9223372036854775808.0}})", {2}),
            "fact 'x': expected an array, {\"fill\": V} or {\"iota\": {...}}");
}

TEST(FactsFuzz, IotaOverflowIsAnError) {
  EXPECT_EQ(
      factError(R"({"x": {"iota": {"start": 9223372036854775806}}})", {3}),
      "fact 'x': iota start overflows 64 bits");
  EXPECT_EQ(
      factError(R"({"x": {"iota": {"start": 9223372036854775806}}})", {2}),
      "9223372036854775806 9223372036854775807 ");
}

} // namespace
