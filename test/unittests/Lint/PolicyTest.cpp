//===- PolicyTest.cpp - policy parsing, merging and matching --------------===//

#include "atrex/Lint/Policy.h"
#include "atrex/Lint/Checks.h"
#include "gtest/gtest.h"

using namespace atrex::lint;
using namespace llvm;

namespace {

std::string errorText(Expected<Policy> P) {
  if (P)
    return "";
  return toString(P.takeError());
}

TEST(PolicyTest, DefaultParsesAndKnowsEveryCheck) {
  const Policy &P = Policy::getDefault();
  EXPECT_EQ(P.Name, "default");
  // Severities come from the registry unless the policy sets them.
  for (const CheckInfo &C : allChecks())
    EXPECT_EQ(P.severity(C.Name), C.Default) << C.Name.str();
  EXPECT_FALSE(P.Rules.empty());
}

TEST(PolicyTest, DefaultClassifiesDelegation) {
  const Policy &P = Policy::getDefault();
  const SymbolRule *R = P.match("cublasGemmEx", "/usr/include/cublas_api.h",
                                /*InDeviceCode=*/false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Check, "atrex-delegation-vendor");
  EXPECT_EQ(R->Library, "cuBLAS");
  // cuBLASLt is matched before cuBLAS.
  R = P.match("cublasLtMatmul", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Library, "cuBLASLt");
  // ATen operators are recognised by their declaring header.
  R = P.match("at::matmul", "/x/torch/include/ATen/ops/matmul.h", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Check, "atrex-delegation-torch");
  EXPECT_EQ(P.match("at::cuda::getCurrentCUDAStream",
                    "/x/torch/include/ATen/cuda/CUDAContextLight.h", false),
            nullptr);
  // Glue is allowed before the Tensor-method rule.
  R = P.match("at::Tensor::data_ptr", "/x/ATen/core/TensorBody.h", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Action, RuleAction::Allow);
  R = P.match("at::Tensor::matmul", "/x/ATen/core/TensorBody.h", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Action, RuleAction::Delegate);
  // ATen's dispatcher (IR without debug info): compute vs views.
  R = P.match("at::_ops::matmul::call", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Check, "atrex-delegation-torch");
  R = P.match("at::_ops::view::call", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Action, RuleAction::Allow);
  R = P.match("at::Tensor::operator[]", "/x/ATen/core/TensorBody.h", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Action, RuleAction::Allow);
}

TEST(PolicyTest, DeviceSideBuildingBlocksAreTheDSL) {
  const Policy &P = Policy::getDefault();
  // Host-context rules do not apply inside kernels.
  EXPECT_EQ(P.match("thrust::sort", "", /*InDeviceCode=*/true), nullptr);
  EXPECT_NE(P.match("thrust::sort", "", /*InDeviceCode=*/false), nullptr);
  EXPECT_EQ(P.match("cub::BlockReduce::Sum", "", false), nullptr);
  ASSERT_NE(P.match("cub::DeviceReduce::Sum", "", false), nullptr);
  EXPECT_EQ(P.match("rocprim::block_reduce::reduce", "", false), nullptr);
  // Evasion rules apply everywhere.
  EXPECT_NE(P.match("dlopen", "", true), nullptr);
}

TEST(PolicyTest, OverrideFileRefinesTheDefault) {
  Expected<Policy> P = Policy::parse(R"(
name: cutlass-track
checks:
  atrex-evasion-file-env: off
rules:
  - id: allow-cutlass
    action: allow
    symbols: ['cutlass::gemm::device::*']
)",
                                     "track.yaml");
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->Name, "cutlass-track");
  EXPECT_EQ(P->severity("atrex-evasion-file-env"), Severity::Off);
  EXPECT_EQ(P->severity("atrex-delegation-vendor"), Severity::Warning);
  const SymbolRule *R =
      P->match("cutlass::gemm::device::Gemm::operator()", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Action, RuleAction::Allow);
  // The default's rules are still there, after the file's.
  EXPECT_NE(P->match("cublasSgemm_v2", "", false), nullptr);
}

TEST(PolicyTest, JsonIsAccepted) {
  Expected<Policy> P = Policy::parse(
      R"({"name": "json", "inherit": "none", "rules": [{"id": "v", "action": "delegate", "check": "atrex-delegation-vendor", "library": "MyBLAS", "symbols": ["myblas_*"]}]})",
      "p.json");
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->Rules.size(), 1u);
  const SymbolRule *R = P->match("myblas_gemm", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Library, "MyBLAS");
  // inherit: none drops the default's rules.
  EXPECT_EQ(P->match("cublasSgemm_v2", "", false), nullptr);
}

TEST(PolicyTest, ErrorsNameTheFileAndTheKey) {
  std::string E = errorText(Policy::parse("nmae: x\n", "bad.yaml"));
  EXPECT_NE(E.find("bad.yaml"), std::string::npos) << E;
  EXPECT_NE(E.find("nmae"), std::string::npos) << E;

  E = errorText(
      Policy::parse("checks:\n  atrex-no-kernel: loud\n", "sev.yaml"));
  EXPECT_NE(E.find("loud"), std::string::npos) << E;
  EXPECT_NE(E.find("sev.yaml"), std::string::npos) << E;

  E = errorText(Policy::parse("checks:\n  atrex-bogus: error\n", "c.yaml"));
  EXPECT_NE(E.find("atrex-bogus"), std::string::npos) << E;

  E = errorText(Policy::parse("rules:\n  - id: u\n    action: delegate\n"
                              "    check: atrex-kernel-unlaunched\n"
                              "    symbols: [x]\n",
                              "u.yaml"));
  EXPECT_NE(E.find("a rule can report under"), std::string::npos) << E;

  E = errorText(Policy::parse(
      "rules:\n  - id: r\n    action: delegate\n    symbols: [x]\n", "r.yaml"));
  EXPECT_NE(E.find("'check'"), std::string::npos) << E;

  E = errorText(Policy::parse(
      "rules:\n  - id: g\n    action: allow\n    symbols: ['a[']\n", "g.yaml"));
  EXPECT_NE(E.find("a["), std::string::npos) << E;

  E = errorText(Policy::parse("rules: [\n", "trunc.yaml"));
  EXPECT_NE(E.find("trunc.yaml"), std::string::npos) << E;

  E = errorText(Policy::loadFile("/nonexistent/policy.yaml"));
  EXPECT_NE(E.find("/nonexistent/policy.yaml"), std::string::npos) << E;
}

TEST(PolicyTest, RoundTripsThroughYAML) {
  std::string Y = Policy::getDefault().toYAML();
  Expected<Policy> P = Policy::parse(Y, "dump.yaml");
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->Rules.size(), Policy::getDefault().Rules.size());
  for (const CheckInfo &C : allChecks())
    EXPECT_EQ(P->severity(C.Name), Policy::getDefault().severity(C.Name))
        << C.Name.str();
}

TEST(PolicyTest, StrictPresetCountsGlue) {
  const Policy *S = Policy::preset("strict");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Name, "strict");
  EXPECT_EQ(S->severity("atrex-glue-torch"), Severity::Warning);
  EXPECT_EQ(Policy::getDefault().severity("atrex-glue-torch"), Severity::Note);
  EXPECT_EQ(S->Rules.size(), Policy::getDefault().Rules.size());
  Expected<Policy> P =
      Policy::parse("inherit: strict\nmode: program\n", "p.yaml");
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_EQ(P->severity("atrex-glue-torch"), Severity::Warning);
  ASSERT_TRUE(P->Mode.has_value());
  EXPECT_EQ(*P->Mode, AnalysisMode::Program);
  std::string E = errorText(Policy::parse("inherit: lax\n", "q.yaml"));
  EXPECT_NE(E.find("default, strict"), std::string::npos) << E;
  E = errorText(Policy::parse("mode: kernel\n", "r.yaml"));
  EXPECT_NE(E.find("'mode' must be"), std::string::npos) << E;
}

TEST(PolicyTest, FailureExitIsNoHarnessEvasion) {
  const SymbolRule *R = Policy::getDefault().match("exit", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->Check, "atrex-evasion-harness-io");
  EXPECT_TRUE(R->ExceptFailureStatus);
  R = Policy::getDefault().match("write", "", false);
  ASSERT_NE(R, nullptr);
  EXPECT_FALSE(R->ExceptFailureStatus);
}

TEST(PolicyTest, ListsAreGlobs) {
  const Policy &P = Policy::getDefault();
  EXPECT_TRUE(P.isLaunchApi("cudaLaunchKernel"));
  EXPECT_TRUE(P.isLaunchApi("hipLaunchKernelGGL"));
  EXPECT_FALSE(P.isLaunchApi("cudaMalloc"));
  EXPECT_TRUE(P.isTimingSymbol("cudaEventElapsedTime"));
  EXPECT_FALSE(P.isTimingSymbol("cudaEventRecordChecked"));
  EXPECT_TRUE(P.isRuntimeSymbol("cuLaunchKernel"));
  EXPECT_FALSE(P.isRuntimeSymbol("custom_helper"));
  EXPECT_TRUE(P.isStreamCreate("cudaStreamCreateWithFlags"));
  EXPECT_TRUE(P.isStreamJoin("cudaStreamSynchronize"));
}

} // namespace
