// Runtime launch APIs (cudaLaunchKernel, cudaLaunchKernelEx) launch the
// kernels passed to them.
// RUN: atrex-lint --mode=submission --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-DAG: kernel 'k1' at {{.*}}: launched
// CHECK-DAG: kernel 'k2' at {{.*}}: launched
// CHECK: verdict: adopted (adopted: 2 own kernels launched
#include <cuda_runtime.h>
__global__ void k1(float *x) { x[0] = 1; }
__global__ void k2(float *x, int n) { x[n] = 2; }
void entry(float *x, int n) {
  void *args[] = {&x};
  cudaLaunchKernel((const void *)k1, dim3(1), dim3(1), args, 0, nullptr);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  cudaLaunchKernelEx(&cfg, k2, x, n);
}
