//===- LintPolicy.cpp - fuzz the atrex-lint policy reader -----------------===//
//
// Part of atrex. The input is a policy document (YAML or JSON,
// docs/policy.md); a policy that loads is queried as the checks query it.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Policy.h"
#include "llvm/Support/Error.h"

#include <cstdint>

using namespace atrex::lint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto P = Policy::parse(Text, "fuzz-policy.yaml");
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  for (llvm::StringRef Sym :
       {"cublasGemmEx", "at::native::mm", "torch::mm", "cudaLaunchKernel",
        "cudaStreamCreate", "std::chrono::steady_clock::now", ""}) {
    (void)P->match(Sym, "/usr/include/cublas_v2.h", false);
    (void)P->match(Sym, "kernel.cu", true);
    (void)P->isLaunchApi(Sym);
    (void)P->isRuntimeSymbol(Sym);
    (void)P->isTimingSymbol(Sym);
    (void)P->isStreamCreate(Sym);
  }
  for (llvm::StringRef Check :
       {"atrex-delegation", "atrex-evasion-harness-io", "no-such-check"})
    (void)P->severity(Check);
  return 0;
}
