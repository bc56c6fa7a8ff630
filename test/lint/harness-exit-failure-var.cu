// exit(code) where the enclosing condition found `code` to be a failure
// (apex's checkError shape) is a failure exit, not evasion; the same call
// where `code` may be success is still evasion.
// RUN: atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --mode=submission --no-snippets %s -- -DEXIT_ANY 2>&1 | FileCheck --check-prefix=ANY %s
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static void checkError(cudaError_t code) {
  if (code != cudaSuccess) {
    fprintf(stderr, "cuda error %d\n", (int)code);
    exit(code);
  }
}
static void checkOk(int err) {
  if (err == 0)
    return;
  else
    exit(err);
}
static void checkBool(int failed) {
  if (failed)
    exit(failed);
}
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, int status) {
  k<<<1, 1>>>(a);
  checkError(cudaGetLastError());
  checkOk(status);
  checkBool(status);
#ifdef EXIT_ANY
  if (status == 0)
    // ANY: :[[@LINE+1]]:5: error: call to 'exit' writes to a raw file descriptor or ends the process, past the harness [atrex-evasion-harness-io]
    exit(status);
#endif
}
// CHECK-NOT: atrex-evasion-harness-io
// CHECK: verdict: adopted
// ANY: verdict: suspicious (suspicious: atrex-evasion-harness-io (exit))
