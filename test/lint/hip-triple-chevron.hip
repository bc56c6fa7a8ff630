// HIP: <<<>>> launches and hipLaunchKernel work as in CUDA.
// REQUIRES: hip
// RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-DAG: kernel 'k1' at {{.*}}: launched
// CHECK-DAG: kernel 'k2' at {{.*}}: launched
// CHECK: verdict: adopted
#include <hip/hip_runtime.h>
__global__ void k1(float *x) { x[threadIdx.x] = 1; }
__global__ void k2(float *x) { x[threadIdx.x] = 2; }
void entry(float *x, hipStream_t s) {
  k1<<<1, 64, 0, s>>>(x);
  void *args[] = {&x};
  hipLaunchKernel((const void *)k2, dim3(1), dim3(64), args, 0, s);
}
