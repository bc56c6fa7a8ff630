// Work queued on a private stream that is never joined back escapes a timer
// on the caller's stream.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  cudaStream_t s;
  // CHECK: :[[@LINE+1]]:3: warning: stream created by 'cudaStreamCreateWithFlags' is never joined back (no synchronize of it, nor an event recorded on it that another stream or the host waits for, is reachable): its work can escape the timer [atrex-evasion-side-stream]
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  k<<<1, 1, 0, s>>>(a);
}
// CHECK: verdict: suspicious
