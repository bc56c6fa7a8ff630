//===- FactsTest.cpp - facts models of the gate's input generators --------===//

#include "atrex/Suite/Suite.h"

#include "gtest/gtest.h"

#include <cmath>
#include <set>

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

TEST(Facts, PagedDecodeWithAForcedLastLength) {
  // mla_decode: the maximum is the entry key S, the last sequence 1 token.
  OperatorConfig O = op("paged-decode");
  O.FactsArgs = {{"max", "S"}, {"last", "1"}};
  auto F = factsFor(O, {{"B", 4}, {"MB", 64}, {"BS", 64}}, {{"S", 4096}});
  ASSERT_TRUE(static_cast<bool>(F));
  EXPECT_EQ(ints(*F->first.getAsObject()->get("context_lens")),
            (std::vector<int64_t>{4096, 1025, 3073, 1}));
  EXPECT_EQ(ints(*F->second.getAsObject()->get("context_lens")),
            (std::vector<int64_t>{4096, 1, 1, 1}));
  // One sequence: only the maximum.
  auto One = factsFor(O, {{"B", 1}, {"MB", 64}, {"BS", 64}}, {{"S", 4096}});
  ASSERT_TRUE(static_cast<bool>(One));
  EXPECT_EQ(ints(*One->first.getAsObject()->get("context_lens")),
            (std::vector<int64_t>{4096}));
}

TEST(Facts, ArgumentsRenameTheInput) {
  OperatorConfig O = op("rope-positions");
  O.FactsArgs = {{"index", "position_ids"}};
  auto F = factsFor(O, {{"T", 4}, {"P", 64}}, {});
  ASSERT_TRUE(static_cast<bool>(F));
  EXPECT_TRUE(F->first.getAsObject()->getObject("position_ids"));
  EXPECT_FALSE(F->first.getAsObject()->getObject("positions"));
  O.FactsArgs = {{"indices", "position_ids"}};
  auto Bad = factsFor(O, {{"T", 4}, {"P", 64}}, {});
  ASSERT_FALSE(static_cast<bool>(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "facts model 'rope-positions' has no argument 'indices'");
  O.FactsArgs = {{"range", "Q"}};
  auto Unbound = factsFor(O, {{"T", 4}, {"P", 64}}, {});
  ASSERT_FALSE(static_cast<bool>(Unbound));
  EXPECT_NE(llvm::toString(Unbound.takeError())
                .find("facts model 'rope-positions' argument 'range'"),
            std::string::npos);
}

TEST(Facts, KvSlotsCountThePaddingTokens) {
  // T/8 padding tokens (at least one when T > 1) write nothing.
  auto Start = [](const Value &V) {
    return *V.getAsObject()
                ->getObject("slot_mapping")
                ->getObject("iota")
                ->getInteger("start");
  };
  for (auto [T, Pad] :
       {std::pair<int64_t, int64_t>{1, 0}, {2, 1}, {64, 8}, {8192, 1024}}) {
    auto F = factsFor(op("kv-slots"), {{"T", T}}, {});
    ASSERT_TRUE(static_cast<bool>(F));
    EXPECT_EQ(Start(F->first), -Pad) << T;
    EXPECT_EQ(F->first, F->second) << "the count does not depend on the seed";
  }
}

TEST(Facts, PooledIds) {
  auto Mod = [](const Value &V) {
    return *V.getAsObject()->getObject("ids")->getObject("iota")->getInteger(
        "mod");
  };
  // T = 64: a pool of 32, 61 draws use 32 (1 - (31/32)^61) = 27.2 of it,
  // plus the ids 0 and V-1.
  auto F = factsFor(op("pooled-ids"), {{"T", 64}, {"V", 128256}}, {});
  ASSERT_TRUE(static_cast<bool>(F));
  EXPECT_EQ(Mod(F->first), 29);
  EXPECT_EQ(F->second.getAsObject()->getObject("ids")->getInteger("fill"), 0);
  // One token: one id; never more ids than tokens or the vocabulary.
  auto One = factsFor(op("pooled-ids"), {{"T", 1}, {"V", 128256}}, {});
  EXPECT_EQ(Mod(One->first), 1);
  auto Small = factsFor(op("pooled-ids"), {{"T", 4096}, {"V", 100}}, {});
  EXPECT_LE(Mod(Small->first), 100);
}

TEST(Facts, ExpertGroups) {
  // E = 8: 2 experts own no rows, so min(T, 6) own rows.
  auto Many = factsFor(op("expert-groups"), {{"T", 20}, {"E", 8}}, {});
  ASSERT_TRUE(static_cast<bool>(Many));
  EXPECT_EQ(ints(*Many->first.getAsObject()->get("offs")),
            (std::vector<int64_t>{4, 8, 11, 14, 17, 20, 20, 20}));
  EXPECT_EQ(Many->first, Many->second);
  auto Few = factsFor(op("expert-groups"), {{"T", 3}, {"E", 8}}, {});
  ASSERT_TRUE(static_cast<bool>(Few));
  EXPECT_EQ(ints(*Few->first.getAsObject()->get("offs")),
            (std::vector<int64_t>{1, 2, 3, 3, 3, 3, 3, 3}));
  // One end per expert, the last = T.
  auto Large = factsFor(op("expert-groups"), {{"T", 512}, {"E", 128}}, {});
  ASSERT_TRUE(static_cast<bool>(Large));
  std::vector<int64_t> Ends = ints(*Large->first.getAsObject()->get("offs"));
  ASSERT_EQ(Ends.size(), 128u);
  EXPECT_EQ(Ends.back(), 512);
  EXPECT_EQ(Ends[95], 512);
  EXPECT_LT(Ends[94], 512);
}

TEST(Facts, EveryModelIsListedOnce) {
  std::set<std::string> Names;
  for (const FactsModel &M : factsModels()) {
    EXPECT_TRUE(Names.insert(M.Name.str()).second) << M.Name.str();
    EXPECT_EQ(findFactsModel(M.Name), &M);
    EXPECT_FALSE(M.Summary.empty());
  }
  EXPECT_EQ(findFactsModel("no-such-model"), nullptr);
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
