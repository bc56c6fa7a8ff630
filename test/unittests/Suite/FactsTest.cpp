//===- FactsTest.cpp - facts models of the gate's input generators --------===//

#include "atrex/Suite/Suite.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace atrex::suite;
using llvm::json::Value;

namespace {

OperatorConfig op(llvm::StringRef Facts) {
  OperatorConfig O;
  O.Name = "x";
  O.Facts = Facts.str();
  return O;
}

std::vector<int64_t> ints(const Value &V) {
  std::vector<int64_t> Out;
  for (const Value &E : *V.getAsArray())
    Out.push_back(*E.getAsInteger());
  return Out;
}

double pairs(const std::vector<int64_t> &Cu) {
  double P = 0;
  for (size_t I = 1; I < Cu.size(); ++I) {
    double L = Cu[I] - Cu[I - 1];
    P += L * (L + 1) / 2;
  }
  return P;
}

TEST(Facts, NoneForDenseOperators) {
  auto F = factsFor(op(""), {{"T", 4}, {"H", 128}}, {{"T", 4}, {"H", 128}});
  ASSERT_TRUE(static_cast<bool>(F));
  EXPECT_EQ(F->first, Value(nullptr));
  EXPECT_EQ(F->second, Value(nullptr));
}

TEST(Facts, PagedDecode) {
  // The gate draws context lengths uniform in [1, L], the first exactly L.
  auto F = factsFor(op("paged-decode"), {{"B", 64}, {"MB", 256}, {"BS", 16}},
                    {{"L", 4096}});
  ASSERT_TRUE(static_cast<bool>(F));
  std::vector<int64_t> Lens =
      ints(*F->first.getAsObject()->get("context_lens"));
  ASSERT_EQ(Lens.size(), 64u);
  EXPECT_EQ(Lens[0], 4096);
  double Mean = 0;
  for (size_t I = 1; I < Lens.size(); ++I) {
    EXPECT_GE(Lens[I], 1);
    EXPECT_LE(Lens[I], 4096);
    Mean += Lens[I];
  }
  Mean /= 63;
  EXPECT_NEAR(Mean, 4097 / 2.0, 4097 * 0.01);
  std::vector<int64_t> Floor =
      ints(*F->second.getAsObject()->get("context_lens"));
  EXPECT_EQ(Floor[0], 4096);
  EXPECT_EQ(Floor[63], 1);
}

TEST(Facts, VarlenPrefillMatchesTheExpectedPairs) {
  // A uniformly random composition of T into B parts has
  // E[sum L(L+1)/2] = T(T+1)/(B+1); the floor is the equal split.
  for (auto [T, B] : std::vector<std::pair<int64_t, int64_t>>{
           {2048, 2}, {8192, 4}, {16384, 16}, {512, 1}, {40, 3}}) {
    auto F = factsFor(op("varlen-prefill"), {{"T", T}, {"B", B}}, {});
    ASSERT_TRUE(static_cast<bool>(F));
    std::vector<int64_t> Cu = ints(*F->first.getAsObject()->get("cu_seqlens"));
    ASSERT_EQ(Cu.size(), static_cast<size_t>(B + 1));
    EXPECT_EQ(Cu.front(), 0);
    EXPECT_EQ(Cu.back(), T);
    for (size_t I = 1; I < Cu.size(); ++I)
      EXPECT_GT(Cu[I], Cu[I - 1]);
    double Target = static_cast<double>(T) * (T + 1) / (B + 1);
    // Within 1% (one token of rounding for tiny T).
    EXPECT_NEAR(pairs(Cu), Target, std::max(Target * 0.01, double(T)))
        << T << " " << B;
    std::vector<int64_t> Floor =
        ints(*F->second.getAsObject()->get("cu_seqlens"));
    for (size_t I = 1; I < Floor.size(); ++I)
      EXPECT_LE(std::abs((Floor[I] - Floor[I - 1]) - T / B), 1);
    EXPECT_LE(pairs(Floor), pairs(Cu));
  }
  EXPECT_FALSE(static_cast<bool>(
      factsFor(op("varlen-prefill"), {{"T", 2}, {"B", 3}}, {})));
}

TEST(Facts, MoeRouting) {
  auto Distinct = [](const Value &V) {
    return *V.getAsObject()
                ->getObject("topk_ids")
                ->getObject("iota")
                ->getInteger("mod");
  };
  // One token routes to exactly K experts; many tokens to all of them.
  auto One = factsFor(op("moe-routing"), {{"T", 1}, {"E", 128}, {"K", 8}}, {});
  ASSERT_TRUE(static_cast<bool>(One));
  EXPECT_EQ(Distinct(One->first), 8);
  auto Many =
      factsFor(op("moe-routing"), {{"T", 8192}, {"E", 256}, {"K", 8}}, {});
  ASSERT_TRUE(static_cast<bool>(Many));
  EXPECT_EQ(Distinct(Many->first), 256);
  EXPECT_EQ(Distinct(Many->second), 8);
  // 32 tokens of top-8 over 256: 256 * (1 - (1 - 8/256)^32) = 163.3.
  auto Some =
      factsFor(op("moe-routing"), {{"T", 32}, {"E", 256}, {"K", 8}}, {});
  EXPECT_EQ(Distinct(Some->first), 163);
}

TEST(Facts, RopePositions) {
  auto F = factsFor(op("rope-positions"), {{"T", 256}, {"P", 131072}}, {});
  ASSERT_TRUE(static_cast<bool>(F));
  int64_t U = *F->first.getAsObject()
                   ->getObject("positions")
                   ->getObject("iota")
                   ->getInteger("mod");
  EXPECT_EQ(U, 256);
  EXPECT_EQ(F->second.getAsObject()->getObject("positions")->getInteger("fill"),
            0);
}

TEST(Facts, EntryShape) {
  OperatorConfig O = op("paged-decode");
  O.Entry = {{"B", "B"}, {"L", "MB*BS"}};
  auto E = entryShape(O, {{"B", 2}, {"MB", 4}, {"BS", 16}, {"NB", 9}});
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ((*E), (Shape{{"B", 2}, {"L", 64}}));
  EXPECT_EQ(shapeString(*E), "B=2,L=64");
}

} // namespace
