// Work hidden in the destructor of a scope guard still runs in the entry.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
struct Finisher {
  cublasHandle_t h;
  float *a;
  ~Finisher() {
    float al = 2;
    // CHECK: :[[@LINE+1]]:5: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS
    cublasSscal_v2(h, 4, &al, a, 1);
  }
};
void entry(cublasHandle_t h, float *a) {
  Finisher f{h, a};
  k<<<1, 1>>>(a);
}
// CHECK: verdict: fallback
