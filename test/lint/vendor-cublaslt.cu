// cuBLASLt matmuls are delegation too (and named as cuBLASLt).
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublasLt.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(cublasLtHandle_t lt, cublasLtMatmulDesc_t d, const void *a,
           const void *b, void *c, cublasLtMatrixLayout_t l, float *x) {
  float one = 1, zero = 0;
  k<<<1, 1>>>(x);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasLtMatmul' delegates compute to cuBLASLt [atrex-delegation-vendor]
  cublasLtMatmul(lt, d, &one, a, l, b, l, &zero, c, l, c, l, nullptr, nullptr,
                 0, 0);
}
// CHECK: verdict: fallback (fallback: cuBLASLt (cublasLtMatmul))
