//===- MappingTest.cpp - dims patterns, derivations and rules -------------===//

#include "atrex/Trace/Mapping.h"

#include "gtest/gtest.h"

using namespace atrex::trace;
using namespace llvm;

namespace {

std::vector<std::optional<std::vector<DimPattern>>>
patterns(std::vector<std::vector<std::string>> Text) {
  std::vector<std::optional<std::vector<DimPattern>>> Out;
  for (auto &Input : Text) {
    if (Input.size() == 1 && Input[0] == "*") {
      Out.push_back(std::nullopt);
      continue;
    }
    std::vector<DimPattern> P;
    for (auto &E : Input) {
      auto D = parseDimPattern(E);
      EXPECT_TRUE(bool(D));
      if (!D) {
        consumeError(D.takeError());
        continue;
      }
      P.push_back(*D);
    }
    Out.push_back(P);
  }
  return Out;
}

OpInputs inputs(std::vector<std::vector<int64_t>> Dims) {
  OpInputs In;
  In.Dims = std::move(Dims);
  In.IsList.assign(In.Dims.size(), false);
  return In;
}

TEST(MappingTest, DimPatterns) {
  std::map<std::string, int64_t> S;
  EXPECT_TRUE(bindDims(patterns({{"M", "K"}, {"K", "N"}}),
                       inputs({{8, 4096}, {4096, 14336}}), S));
  EXPECT_EQ(S["M"], 8);
  EXPECT_EQ(S["N"], 14336);
  EXPECT_EQ(S["K"], 4096);
  // K must agree across inputs.
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"M", "K"}, {"K", "N"}}),
                        inputs({{8, 4096}, {4095, 14336}}), S));
  // Leading dims fold into a product; rank must fit.
  S.clear();
  EXPECT_TRUE(bindDims(patterns({{"M...", "K"}}), inputs({{2, 3, 5, 7}}), S));
  EXPECT_EQ(S["M"], 30);
  EXPECT_EQ(S["K"], 7);
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"A", "B"}}), inputs({{2, 3, 5}}), S));
  // Coefficients, literals, wildcards and skipped inputs.
  S.clear();
  EXPECT_TRUE(bindDims(patterns({{"*"}, {"T", "2*D"}, {"128", "_"}}),
                       inputs({{1}, {4, 22016}, {128, 9}}), S));
  EXPECT_EQ(S["D"], 11008);
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"T", "2*D"}}), inputs({{4, 7}}), S));
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"128"}}), inputs({{127}}), S));
  // More patterns than inputs, or a tensor list, do not match.
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"A"}, {"B"}}), inputs({{1}}), S));
  OpInputs List = inputs({{}});
  List.IsList[0] = true;
  S.clear();
  EXPECT_FALSE(bindDims(patterns({{"A"}}), List, S));

  for (StringRef Bad : {"", "2*", "x*K", "K..L", "-3*K", "1x"}) {
    auto P = parseDimPattern(Bad);
    EXPECT_FALSE(bool(P)) << Bad.str();
    if (!P)
      consumeError(P.takeError());
  }
}

TEST(MappingTest, Expressions) {
  std::map<std::string, int64_t> S{{"S", 1000}, {"B", 4}};
  auto V = evalShapeExpr("B*((S+15)/16)+1", S);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, 4 * 63 + 1);
  V = evalShapeExpr("S - 2 * B", S);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, 992);
  V = evalShapeExpr("(0-7)/2", S);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, -4); // floor division
  for (StringRef Bad : {"S/(B-4)", "S+", "Q", "(S", "S S"}) {
    auto E = evalShapeExpr(Bad, S);
    EXPECT_FALSE(bool(E)) << Bad.str();
    if (!E)
      consumeError(E.takeError());
  }
}

TEST(MappingTest, ParseDefaultsAndErrors) {
  auto M = Mapping::parse("m.yaml", R"(version: 1
rules:
  - op: "aten::mm"
    operator: gemm_bf16
    dims: [[M, K], [K, N]]
    derive: ["_unused=M*2", "MN=M*N"]
)");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  ASSERT_EQ(M->rules().size(), 1u);
  EXPECT_EQ(M->rules()[0].Params,
            (std::vector<std::string>{"K", "M", "MN", "N"}));
  EXPECT_EQ(M->decodeMaxQueryLen(), 1);

  auto Err = [](StringRef Text) {
    auto B = Mapping::parse("m.yaml", Text);
    EXPECT_FALSE(bool(B));
    return B ? std::string() : toString(B.takeError());
  };
  EXPECT_EQ(Err("version: 2\nrules: []\n"),
            "mapping file 'm.yaml': unsupported version 2 (expected 1)");
  EXPECT_EQ(Err("version: 1\nrules:\n  - operator: x\n"),
            "mapping file 'm.yaml': rule 1 (x): needs 'op', 'kernel' or "
            "'sequence'");
  EXPECT_EQ(Err("version: 1\nrules:\n  - op: a\n    operator: x\n"
                "    phase: warmup\n"),
            "mapping file 'm.yaml': rule 1 (x): phase must be prefill or "
            "decode, not 'warmup'");
  EXPECT_EQ(Err("version: 1\nrules:\n  - op: a\n    operator: x\n"
                "    dims: [[M]]\n    query_len: L\n"),
            "mapping file 'm.yaml': rule 1 (x): query_len 'L' is not bound "
            "by 'dims'");
  EXPECT_NE(Err("version: 1\nrules:\n  - op: a\n")
                .find("missing required "
                      "key 'operator'"),
            std::string::npos);
}

} // namespace
