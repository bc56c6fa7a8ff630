// atrex-template: alpha
// atrex-summary: a test family (test/agent/search.test)
// atrex-order: 1
// atrex-param: X 1 2 3
// atrex-default: X=1
// atrex-focus: memory X
#include <cuda_runtime.h>
__global__ void rms_kernel(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i];
}
void rms_norm(float *out, const float *x, int n) {
  rms_kernel<<<(n + 255) / 256, 256>>>(out, x, n);
}
