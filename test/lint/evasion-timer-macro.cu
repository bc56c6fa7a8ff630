// A macro that renames a runtime timing function.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
static cudaError_t fake_sync() { return cudaSuccess; }
// CHECK: :[[@LINE+1]]:9: error: macro 'cudaDeviceSynchronize' redefines the timing/synchronisation function of the same name [atrex-evasion-runtime-override]
#define cudaDeviceSynchronize fake_sync
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  k<<<1, 1>>>(a);
  cudaDeviceSynchronize();
}
// CHECK: verdict: suspicious
