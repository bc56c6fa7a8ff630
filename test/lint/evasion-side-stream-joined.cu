// A side stream joined back with an event wait is fine.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, cudaStream_t caller) {
  cudaStream_t s;
  cudaEvent_t done;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  k<<<1, 1, 0, s>>>(a);
  cudaEventRecord(done, s);
  cudaStreamWaitEvent(caller, done, 0);
}
