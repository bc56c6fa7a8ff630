// In a normal build the plugin sees library code: kernels launched from
// other files are not 'unlaunched', an error check that exits is not a
// harness evasion, and delegation is still reported per function.
// -fplugin-arg-atrex-mode= chooses another mode.
// REQUIRES: cuda
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-json=%t.lib.json -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=LIBJSON < %t.lib.json
// RUN: %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-mode=submission -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=SUB
// RUN: not %clang_cuda_host -fplugin=%atrex_clang_plugin -fplugin-arg-atrex-mode=kernel -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BAD
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <unistd.h>
__global__ void scale(float *x, int n) {
  if (threadIdx.x < n)
    x[threadIdx.x] *= 2;
}
// CHECK-NOT: atrex-kernel-unlaunched
// CHECK-NOT: atrex-evasion-harness-io
void fail(const char *what) {
  fprintf(stderr, "%s\n", what);
  write(2, what, 1);
}
static void gemm(cublasHandle_t h, float *a, int n) {
  const float one = 1;
  // CHECK: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
  if (cublasSscal(h, n, &one, a, 1) != CUBLAS_STATUS_SUCCESS)
    fail("cublas");
}
// LIBJSON: "mode": "library"
// LIBJSON: "verdict": "fallback"
// SUB: warning: kernel 'scale' is defined but never launched from the entry [atrex-kernel-unlaunched]
// SUB: call to 'write' writes to a raw file descriptor
// BAD: error: atrex: mode must be submission, program, library or auto, not 'kernel'
