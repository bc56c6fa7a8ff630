// 2: does not compile (FAKE_COMPILE_ERROR): the gate fails, nothing to profile
#include <cuda_runtime.h>
__global__ void rms_kernel(float *out, const float *x, int n) { out[0] = ; }
void rms_norm(float *out, const float *x, int n) {
  rms_kernel<<<1, 1>>>(out, x, n);
}
