// atrex-template: delta
// atrex-summary: a test family (test/agent/search-directions.test) that answers more-in-flight as a whole
// atrex-order: 2
// atrex-param: P 1 2
// atrex-default: P=1
// atrex-focus: memory P
// atrex-direction: more-in-flight
// FAKE_KERNEL=_Z10rms_kernelPfPKfi FAKE_NCU=latency-rms
#include <cuda_runtime.h>
__global__ void rms_kernel(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i];
}
void rms_norm(float *out, const float *x, int n) {
  rms_kernel<<<(n + 255) / 256, 256>>>(out, x, n);
}
