// Interposing a runtime function declared by the CUDA headers.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
// CHECK: :[[@LINE+1]]:24: error: definition of 'cudaGetLastError' replaces the runtime function the harness relies on [atrex-evasion-runtime-override]
extern "C" cudaError_t cudaGetLastError() { return cudaSuccess; }
// A helper of the submission's own whose name merely starts with 'cuda' is fine.
static void cudaCheck(cudaError_t e) { (void)e; }
void entry(float *a) {
  k<<<1, 1>>>(a);
  cudaCheck(cudaPeekAtLastError());
}
// CHECK-NOT: cudaCheck
// CHECK-NOT: cudaEventRecordChecked
// CHECK: verdict: suspicious
// A helper whose name only starts like a timing function is not a
// redefinition (regression: timing symbols were globs).
static cudaError_t cudaEventRecordChecked(cudaEvent_t e) {
  return cudaEventRecord(e, 0);
}
void timed(cudaEvent_t e) { cudaEventRecordChecked(e); }
