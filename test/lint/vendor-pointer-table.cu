// A function-pointer table that hides cuBLAS behind an index is resolved
// through the table's initialiser.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
using sgemm_t = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                   cublasOperation_t, int, int, int,
                                   const float *, const float *, int,
                                   const float *, int, const float *, float *,
                                   int);
// CHECK: :[[@LINE+1]]:30: warning: reference to 'cublasSgemm_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
static sgemm_t kernels[] = {&cublasSgemm_v2};
void entry(cublasHandle_t h, float *a, int which) {
  float al = 1, be = 0;
  k<<<1, 1>>>(a);
  kernels[which](h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &al, a, 4, a, 4, &be, a,
                 4);
}
// CHECK: verdict: fallback
