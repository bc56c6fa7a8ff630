// HIP: rocBLAS and hipBLAS are delegation (declared by hand here: the
// libraries' headers are not needed to see the call).
// REQUIRES: hip
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <hip/hip_runtime.h>
extern "C" int rocblas_sgemm(void *, int, int, int, int, int, const float *,
                             const float *, int, const float *, int,
                             const float *, float *, int);
extern "C" int hipblasLtMatmul(void *, void *, const void *, const void *,
                               void *, const void *, void *, const void *,
                               void *, void *, void *, void *, const void *,
                               void *, size_t, hipStream_t);
__global__ void k(float *x) { x[0] = 0; }
void entry(void *h, float *a) {
  float al = 1, be = 0;
  hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, a);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'rocblas_sgemm' delegates compute to rocBLAS [atrex-delegation-vendor]
  rocblas_sgemm(h, 0, 0, 4, 4, 4, &al, a, 4, a, 4, &be, a, 4);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'hipblasLtMatmul' delegates compute to hipBLASLt [atrex-delegation-vendor]
  hipblasLtMatmul(h, h, &al, a, h, a, h, &be, a, h, a, h, nullptr, nullptr, 0,
                  0);
}
// CHECK: verdict: fallback
