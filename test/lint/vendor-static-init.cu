// Global initialisers run when the library is loaded: what they call is
// reached from the '<static-initialization>' entry.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
static cublasHandle_t make() {
  cublasHandle_t h;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasCreate_v2' delegates compute to cuBLAS
  cublasCreate(&h);
  return h;
}
// CHECK: note: reached from entry '<static-initialization>' -> 'make'
static cublasHandle_t handle = make();
void entry(float *a) { k<<<1, 1>>>(a); }
// CHECK: verdict: fallback
