// A virtual call reaches every override defined by the submission.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void k(float *x) { x[0] = 0; }
struct Backend {
  virtual void run(float *a) = 0;
  virtual ~Backend() = default;
};
struct Own : Backend {
  void run(float *a) override { k<<<1, 1>>>(a); }
};
struct Vendor : Backend {
  cublasHandle_t h = nullptr;
  void run(float *a) override {
    float al = 2;
    // CHECK: :[[@LINE+1]]:5: warning: call to 'cublasSscal_v2' delegates compute to cuBLAS
    cublasSscal_v2(h, 4, &al, a, 1);
  }
};
void entry(Backend *b, float *a) { b->run(a); }
// CHECK: verdict: fallback
