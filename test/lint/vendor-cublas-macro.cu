// cuBLAS's own `cublasSgemm` macro (for cublasSgemm_v2) is seen through.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(cublasHandle_t h, float *a) {
  float al = 1, be = 0;
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &al, a, 4, a, 4, &be, a, 4);
}
// CHECK: verdict: fallback
