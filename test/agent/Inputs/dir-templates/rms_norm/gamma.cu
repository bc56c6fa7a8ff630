// atrex-template: gamma
// atrex-summary: a test family (test/agent/search-directions.test): its regime order leads with A, its directions name R and W
// atrex-order: 1
// atrex-param: A 1 2 3
// atrex-param: W 1 2 4
// atrex-param: R 1 2
// atrex-default: A=1 W=1 R=1
// atrex-focus: memory A W R
// atrex-direction: raise-occupancy R+
// atrex-direction: wider-loads W+
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
