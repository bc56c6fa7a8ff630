#include "launch.h"
__global__ void silu_mul(const float *x, float *y, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d) {
    float g = x[i];
    y[i] = g / (1.f + __expf(-g)) * x[d + i];
  }
}
void launch_silu_mul(const float *x, float *y, int d) {
  silu_mul<<<(d + 255) / 256, 256>>>(x, y, d);
}
