// A program still delegates when it hands the compute to a library, and
// loading code behind the analysis is still suspicious in a program.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %S/Inputs/program-dlopen.cu 2>&1 | FileCheck %S/Inputs/program-dlopen.cu
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main() {
  const int n = 256;
  float *a, *b, *c;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  printf("done\n");
  exit(0);
}
// CHECK-NOT: atrex-evasion
// CHECK: analysed as a program
// CHECK: verdict: fallback (fallback: cuBLAS (cublasSgemm_v2); no-kernel: no kernel is defined: the program launches no GPU code of its own)
