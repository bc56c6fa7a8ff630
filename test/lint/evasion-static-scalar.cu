// Scalar state (a cached device property) is reported as a note only.
// RUN: atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  // CHECK: :[[@LINE+1]]:14: note: static local 'sms' of type 'int' keeps state between calls of the entry [atrex-evasion-static-state]
  static int sms = 0;
  if (!sms)
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  k<<<sms, 1>>>(a);
}
// CHECK: verdict: adopted
