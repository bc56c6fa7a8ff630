// Global initialisers run when the library is loaded: what they call is
// reached from the '<static-initialization>' entry.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
static float make() {
  cublasHandle_t h;
  cublasCreate(&h); // setup, not compute
  float r = 0;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSasum_v2' delegates compute to cuBLAS
  cublasSasum(h, 4, nullptr, 1, &r);
  return r;
}
// CHECK: note: reached from entry '<static-initialization>' -> 'make'
static float sum = make();
void entry(float *a) { k<<<1, 1>>>(a); }
// CHECK: verdict: fallback
