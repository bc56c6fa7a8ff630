// Redefining the runtime's timing functions is tampering, reachable or not.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
// CHECK: :[[@LINE+1]]:24: error: definition of 'cudaEventElapsedTime' replaces the timing/synchronisation function the harness relies on [atrex-evasion-runtime-override]
extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}
void entry(float *a) { k<<<1, 1>>>(a); }
// CHECK: verdict: suspicious
