// HIP: hipLaunchKernelGGL launches an own kernel.
// REQUIRES: hip
// RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: kernel 'axpy' at {{.*}}: launched
// CHECK: verdict: adopted
#include <hip/hip_runtime.h>
__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}
void entry(float a, const float *x, float *y, int n) {
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, a, x, y, n);
}
