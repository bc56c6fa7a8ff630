// The best-known timing exploit: all work on a fresh non-blocking stream that
// is made to wait on the caller's stream (so its inputs are ready) but never
// joined back, then destroyed. The timer on the caller's stream stops before
// the work ends. Waiting in that direction is no join, and destroying a
// stream does not wait for it.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/side-stream-torch-wrong-direction.cu 2>&1 | FileCheck %S/Inputs/side-stream-torch-wrong-direction.cu
#include <cuda_runtime.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, cudaStream_t caller) {
  cudaStream_t side;
  cudaEvent_t ready;
  // CHECK: :[[@LINE+1]]:3: warning: stream created by 'cudaStreamCreateWithFlags' is never joined back {{.*}}[atrex-evasion-side-stream]
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventRecord(ready, caller);
  cudaStreamWaitEvent(side, ready, 0);
  k<<<1, 1, 0, side>>>(a);
  cudaStreamDestroy(side);
}
// CHECK: verdict: suspicious
