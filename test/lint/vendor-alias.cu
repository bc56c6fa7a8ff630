// A local alias of a vendor function is still a call to it.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(cublasHandle_t h, float *a) {
  // CHECK: :[[@LINE+1]]:16: warning: reference to 'cublasSscal_v2' delegates compute to cuBLAS
  auto scale = cublasSscal_v2;
  float al = 2;
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS
  scale(h, 4, &al, a, 1);
}
// CHECK: verdict: fallback
