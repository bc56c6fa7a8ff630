// Exiting with a failure status in an error check makes the harness fail the
// unit: no evasion. Exiting with status 0 (or an unknown status) from the
// entry skips the harness's checks: evasion.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != cudaSuccess) {                                               \
      fprintf(stderr, "cuda error\n");                                         \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, int status) {
  k<<<1, 1>>>(a);
  CHECK(cudaGetLastError());
  if (status < 0)
    exit(1);
  // CHECK: :[[@LINE+1]]:3: error: call to 'exit' writes to a raw file descriptor or ends the process, past the harness [atrex-evasion-harness-io]
  exit(status);
}
// CHECK-NOT: :19:{{.*}}atrex-evasion-harness-io
// CHECK: verdict: suspicious (suspicious: atrex-evasion-harness-io (exit))
