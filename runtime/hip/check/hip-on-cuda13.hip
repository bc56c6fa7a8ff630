// The 10-line kernel of bench/results/gate-2026-11-29/hip-on-cuda13.txt, which gave 45
// errors against the unpatched HIP 5.2.3 NVIDIA headers with CUDA 13.0's nvcc.
#include <hip/hip_runtime.h>
#include <cstdint>
__global__ void k(float *o, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = x[i] * 2.f;
}
void run(float *o, const float *x, int n, hipStream_t s) {
  hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(256), 0, s, o, x, n);
  hipError_t e = hipGetLastError(); (void)e;
}
