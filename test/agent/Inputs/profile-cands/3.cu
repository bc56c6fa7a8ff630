// 3: honest, FAKE_US=10; no attribution names its kernel, so the profile
// takes the __global__ functions of the source; ncu profiles none of them
// (FAKE_NCU=none)
#include <cuda_runtime.h>
template <int V>
__global__ void __launch_bounds__(256) rms_vec_kernel(float *out, const float *x, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * V;
  for (int j = 0; j < V; ++j)
    if (i + j < n)
      out[i + j] = x[i + j] * 3.0f;
}
void rms_norm(float *out, const float *x, int n) {
  rms_vec_kernel<4><<<(n + 1023) / 1024, 256>>>(out, x, n);
}
