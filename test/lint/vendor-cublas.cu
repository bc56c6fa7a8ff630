// A GEMM handed to cuBLAS from a helper: the finding names the library, the
// symbol and the call path from the entry.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cublas_v2.h>
__global__ void bias(float *y, const float *b, int n) { y[threadIdx.x] += b[0]; }
static void gemm(cublasHandle_t h, const float *a, const float *b, float *c,
                 int m, int n, int k) {
  float one = 1, zero = 0;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasGemmEx' delegates compute to cuBLAS [atrex-delegation-vendor]
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, k,
               a, CUDA_R_32F, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}
// CHECK: note: reached from entry 'linear' -> 'gemm'
void linear(cublasHandle_t h, const float *x, const float *w, const float *b,
            float *y, int m, int n, int k) {
  gemm(h, x, w, y, m, n, k);
  bias<<<m, n>>>(y, b, n);
}
// CHECK: verdict: fallback (fallback: cuBLAS (cublasGemmEx))
