// Vendor calls in comments, strings, `#if 0` regions, constant-false
// branches and unreachable functions never count.
// RUN: atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
// cublasSgemm(h, ...) would be faster
static const char *kNote = "cublasGemmEx is not used here";
#if 0
void old(cublasHandle_t h, float *a) { float al = 1; cublasSscal_v2(h, 4, &al, a, 1); }
#endif
static void unused_path(cublasHandle_t h, float *a) {
  float al = 1;
  cublasSscal_v2(h, 4, &al, a, 1);
}
void entry(cublasHandle_t h, float *a) {
  if (false) {
    float al = 1;
    cublasSscal_v2(h, 4, &al, a, 1);
  }
  k<<<1, 1>>>(a);
}
