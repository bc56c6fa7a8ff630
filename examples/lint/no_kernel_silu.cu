// silu_and_mul with a kernel that is never launched: the launch sits behind
// a constant-false switch and the work is done on the host.
// Expected verdict: no-kernel.
#include <cmath>

constexpr bool kUseGpu = false;

__global__ void silu_and_mul_kernel(const float *x, float *y, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d)
    y[i] = x[i] / (1.f + expf(-x[i])) * x[d + i];
}

void silu_and_mul(const float *x, float *y, int tokens, int d) {
  if (kUseGpu) {
    silu_and_mul_kernel<<<tokens, 256>>>(x, y, d);
    return;
  }
  for (int t = 0; t < tokens; ++t)
    for (int i = 0; i < d; ++i) {
      float g = x[t * 2 * d + i];
      y[t * d + i] = g / (1.f + std::exp(-g)) * x[t * 2 * d + d + i];
    }
}
