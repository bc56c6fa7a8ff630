//===- SealedTest.cpp - sealed.json, weights.json, the commitment ---------===//

#include "atrex/Score/Sealed.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace atrex::score;
using namespace llvm;

namespace {

const char *const Sealed = R"({"format": "atrex-sealed", "version": 1,
  "suite": "unit", "salt": "s", "seeds": {},
  "hardware": {"H200": {"name": "H200", "full_name": "NVIDIA H200",
    "datasheet": {"hbm_tbps": 4.8, "peak_tflops": {
      "matrix": {"bf16": 989.4, "fp8": 1978.9}, "vector": {"fp32": 66.9}}},
    "measured": {"hbm_tbps": 4.25, "peak_tflops": {"matrix": {"bf16": 703.2}}}}},
  "problems": [
    {"id": "p1", "operator": "rms_norm", "phase": "decode", "shape": {"T": 1},
     "visibility": "public", "provenance": {},
     "roofline": {"H200": {"t_roofline_s": 1e-5, "t_roofline_datasheet_s": 8e-6,
       "t_roofline_measured_s": 1e-5, "t_floor_s": 6e-6, "ceiling": "measured", "regime": "memory",
       "intensity": 0.5, "flops_total": 100, "bytes": 200}}},
    {"id": "p2", "operator": "gemm_bf16", "phase": "prefill",
     "visibility": "hidden",
     "roofline": {"H200": {"t_roofline_s": 2e-5, "t_roofline_datasheet_s": 1e-5,
       "t_roofline_measured_s": null, "ceiling": "datasheet", "regime": "compute",
       "intensity": 800, "flops_total": 1.6e7, "bytes": 2e4}}}]})";

std::string weights(StringRef Commitment, StringRef Body) {
  return (R"({"format": "atrex-sealed-weights", "version": 1, "commitment": ")" +
          Commitment + R"(", "source": "unit", "weights": )" + Body + "}")
      .str();
}

std::string errorOf(Error E) { return toString(std::move(E)); }

TEST(SealedTest, Commitment) {
  EXPECT_EQ(sha256Commitment("abc"),
            "sha256:"
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SealedTest, Parse) {
  auto B = parseSealed("sealed.json", Sealed);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(B->Suite, "unit");
  EXPECT_EQ(B->Commitment, sha256Commitment(Sealed));
  ASSERT_EQ(B->Problems.size(), 2u);
  const SuiteProblem &P1 = B->Problems[0], &P2 = B->Problems[1];
  EXPECT_EQ(P1.Operator, "rms_norm");
  EXPECT_EQ(P1.Phase, "decode");
  const Roofline &R1 = P1.Rooflines.at("H200");
  EXPECT_DOUBLE_EQ(R1.TRooflineS, 1e-5);
  EXPECT_DOUBLE_EQ(R1.TDatasheetS, 8e-6);
  EXPECT_EQ(R1.Regime, "memory");
  EXPECT_DOUBLE_EQ(R1.floorS(), 6e-6);
  EXPECT_DOUBLE_EQ(P2.Rooflines.at("H200").floorS(), 1e-5);
  EXPECT_EQ(P2.Visibility, "hidden");
  EXPECT_FALSE(P2.Rooflines.at("H200").TMeasuredS.has_value());
  EXPECT_EQ(P2.Rooflines.at("H200").Ceiling, "datasheet");
  const Hardware &H = B->Gpus.at("H200");
  EXPECT_DOUBLE_EQ(H.Datasheet.HbmTbps, 4.8);
  // Peaks: matrix before vector, each by decreasing value.
  ASSERT_EQ(H.Datasheet.Peaks.size(), 3u);
  EXPECT_EQ(H.Datasheet.Peaks[0].Dtype, "fp8");
  EXPECT_EQ(H.Datasheet.Peaks[1].Dtype, "bf16");
  EXPECT_EQ(H.Datasheet.Peaks[2].Engine, "vector");
  ASSERT_TRUE(H.Measured.has_value());
  EXPECT_DOUBLE_EQ(H.Measured->HbmTbps, 4.25);
}

TEST(SealedTest, FormatAndVersion) {
  std::string Text = Sealed;
  std::string Wrong = Text;
  Wrong.replace(Wrong.find("atrex-sealed"), 12, "atrex-public");
  auto B = parseSealed("s.json", Wrong);
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(errorOf(B.takeError()),
            "'s.json': format is \"atrex-public\", expected \"atrex-sealed\"");
  std::string V2 = Text;
  V2.replace(V2.find("\"version\": 1"), 12, "\"version\": 3");
  B = parseSealed("s.json", V2);
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(errorOf(B.takeError()),
            "'s.json': unsupported atrex-sealed version 3 (this atrex reads "
            "versions 1-2)");
  B = parseSealed("s.json", "{\"version\": 1}");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(errorOf(B.takeError()),
            "'s.json': missing \"format\" (expected \"atrex-sealed\")");
  B = parseSealed("s.json", "[1, 2");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(errorOf(B.takeError()).rfind("'s.json': invalid JSON: ", 0), 0u);
}

TEST(SealedTest, BadProblems) {
  auto Check = [](StringRef From, StringRef To, StringRef Message) {
    std::string Text = Sealed;
    size_t At = Text.find(From.str());
    ASSERT_NE(At, std::string::npos) << From.str();
    Text.replace(At, From.size(), To.str());
    auto B = parseSealed("s.json", Text);
    ASSERT_FALSE(bool(B)) << From.str();
    EXPECT_EQ(errorOf(B.takeError()), Message.str());
  };
  Check("\"id\": \"p2\"", "\"id\": \"p1\"",
        "'s.json': problem 'p1' appears twice");
  Check("\"phase\": \"decode\"", "\"phase\": \"mixed\"",
        "'s.json': problem 'p1': \"phase\" must be \"prefill\" or \"decode\"");
  Check("\"regime\": \"memory\"", "\"regime\": \"latency\"",
        "'s.json': problem 'p1': roofline \"H200\": \"regime\" must be "
        "\"memory\" or \"compute\"");
  Check("\"t_roofline_s\": 1e-5", "\"t_roofline_s\": 0",
        "'s.json': problem 'p1': roofline \"H200\": \"t_roofline_s\" is "
        "missing or not a positive number");
  Check("\"hbm_tbps\": 4.8", "\"hbm_tbps\": -1",
        "'s.json': hardware \"H200\" datasheet: missing or non-positive "
        "\"hbm_tbps\"");
}

TEST(SealedTest, Weights) {
  auto B = parseSealed("sealed.json", Sealed);
  ASSERT_TRUE(bool(B));
  std::string C = B->Commitment;
  // Unknown ids warn; problems without weight warn and weigh 0.
  ASSERT_FALSE(
      bool(parseWeights(*B, "w.json", weights(C, R"({"p1": 2, "zz": 1})"))));
  EXPECT_EQ(B->Weights.size(), 1u);
  ASSERT_EQ(B->Warnings.size(), 2u);
  EXPECT_EQ(B->Warnings[0],
            "'w.json' weighs 'zz', which is not a problem of the suite; "
            "ignored");
  EXPECT_EQ(B->Warnings[1],
            "problem 'p2' has no weight in 'w.json'; it counts with weight 0");

  auto B2 = parseSealed("sealed.json", Sealed);
  EXPECT_EQ(
      errorOf(
          parseWeights(*B2, "w.json", weights("sha256:ab", R"({"p1": 1})"))),
      "'w.json' is for the sealed bundle sha256:ab but 'sealed.json' is " + C);
  EXPECT_EQ(errorOf(parseWeights(*B2, "w.json", weights(C, R"({"p1": -1})"))),
            "'w.json': weight of 'p1' is not a non-negative number");
  EXPECT_EQ(
      errorOf(parseWeights(*B2, "w.json", weights(C, R"({"p1": 0, "p2": 0})"))),
      "'w.json': the weights of the suite's problems sum to 0");
  std::string V2 = weights(C, "{}");
  V2.replace(V2.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_EQ(errorOf(parseWeights(*B2, "w.json", V2)),
            "'w.json': unsupported atrex-sealed-weights version 2 (this atrex "
            "reads version 1)");
}

TEST(SealedTest, LoadAndVerifyPublic) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("atrex-sealed-test", Dir));
  auto Write = [&](StringRef Name, StringRef Text) -> std::string {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    EXPECT_FALSE(EC);
    OS << Text;
    return std::string(P);
  };
  std::string C = sha256Commitment(Sealed);
  Write("sealed.json", Sealed);
  Write("weights.json", weights(C, R"({"p1": 1, "p2": 3})"));
  std::string Good =
      Write("public.json", "{\"sealed_commitment\": \"" + C + "\"}");
  std::string Bad = Write("bad.json", "{\"sealed_commitment\": \"sha256:00\"}");
  auto B = loadSealedBundle(Dir);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_DOUBLE_EQ(B->Weights.at("p2"), 3);
  EXPECT_FALSE(bool(verifyPublicCommitment(*B, Dir)));
  EXPECT_FALSE(bool(verifyPublicCommitment(*B, Good)));
  std::string E = errorOf(verifyPublicCommitment(*B, Bad));
  EXPECT_EQ(
      E.rfind("commitment mismatch: '" + Bad + "' commits to sha256:00 but '",
              0),
      0u)
      << E;
  EXPECT_NE(E.find("; refusing to score"), std::string::npos);
  sys::fs::remove_directories(Dir);
}

} // namespace
