//===- GhostPatch.cu - The ghost-replay check's device patch --------------===//
//
// Compute Sanitizer patch (built with `nvcc --fatbin --compile-as-tools-patch`,
// loaded by Attribution.cpp): installed at block entry of every kernel of the
// submission's own modules during the ghost call only, it ends each thread
// before any of the kernel's code runs. What the call's outputs then hold
// came from somewhere else than the submission's kernels (docs/gate.md,
// "Integrity checks").
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <sanitizer_patching.h>

extern "C" __device__ __noinline__ SanitizerPatchResult
atrexGhostBlockEnter(void *userdata, uint64_t pc) {
  (void)userdata;
  (void)pc;
  asm volatile("exit;");
  return SANITIZER_PATCH_SUCCESS;
}
