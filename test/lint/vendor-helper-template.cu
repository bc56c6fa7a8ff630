// Delegation inside a lambda handed to a helper template is followed through
// the template's instantiation.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
template <typename F> static void with_handle(F &&f) {
  cublasHandle_t h = nullptr;
  f(h);
}
void entry(float *a) {
  k<<<1, 1>>>(a);
  with_handle([&](cublasHandle_t h) {
    float al = 2;
    // CHECK: :[[@LINE+1]]:5: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS
    cublasSscal_v2(h, 4, &al, a, 1);
  });
}
// CHECK: verdict: fallback
