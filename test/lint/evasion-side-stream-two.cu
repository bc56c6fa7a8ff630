// Streams are followed by their variables: joining one stream does not join
// another (regression: any join used to clear every stream).
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, float *b) {
  cudaStream_t joined, escaped, waited;
  cudaEvent_t done;
  cudaStreamCreate(&joined);
  // CHECK: :[[@LINE+1]]:3: warning: stream created by 'cudaStreamCreate' is never joined back (no synchronize of it, nor an event recorded on it that another stream or the host waits for, is reachable): its work can escape the timer [atrex-evasion-side-stream]
  cudaStreamCreate(&escaped);
  cudaStreamCreate(&waited);
  cudaEventCreate(&done);
  k<<<1, 1, 0, joined>>>(a);
  k<<<1, 1, 0, escaped>>>(b);
  k<<<1, 1, 0, waited>>>(b);
  cudaStreamSynchronize(joined);
  cudaEventRecord(done, waited);
  cudaStreamWaitEvent(0, done, 0);
}
// CHECK-NOT: warning: stream created
// CHECK: verdict: suspicious (suspicious: atrex-evasion-side-stream (cudaStreamCreate))
