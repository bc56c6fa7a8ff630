// atrex-template: beta
// atrex-summary: a test family (test/agent/search.test)
// atrex-order: 2
// atrex-param: Y 1 2
// atrex-param: Z 1 2
// atrex-default: Y=1 Z=1
// atrex-focus: memory Y Z
#include <cuda_runtime.h>
__global__ void rms_kernel(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i];
}
void rms_norm(float *out, const float *x, int n) {
  rms_kernel<<<(n + 255) / 256, 256>>>(out, x, n);
}
