// silu_and_mul in HIP, launched with hipLaunchKernelGGL.
// Expected verdict: adopted.
#include <hip/hip_runtime.h>

__global__ void silu_and_mul_kernel(const float *__restrict__ x,
                                    float *__restrict__ y, int d) {
  const float *row = x + static_cast<size_t>(blockIdx.x) * 2 * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float g = row[i];
    y[static_cast<size_t>(blockIdx.x) * d + i] =
        g / (1.f + __expf(-g)) * row[d + i];
  }
}

void silu_and_mul(const float *x, float *y, int tokens, int d,
                  hipStream_t stream) {
  hipLaunchKernelGGL(silu_and_mul_kernel, dim3(tokens), dim3(256), 0, stream,
                     x, y, d);
}
