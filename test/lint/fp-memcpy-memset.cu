// Runtime memory operations around an own kernel are not delegation.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <cuda_runtime.h>
__global__ void acc(float *y, const float *x, int n) {
  atomicAdd(y, x[threadIdx.x % n]);
}
void entry(float *y, const float *x, int n, cudaStream_t s) {
  cudaMemsetAsync(y, 0, sizeof(float), s);
  acc<<<1, 128, 0, s>>>(y, x, n);
  float host;
  cudaMemcpyAsync(&host, y, sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
}
