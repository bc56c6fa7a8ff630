// A hipified .cu file (ROCm projects keep the extension) whose HIP comes in
// only through a header of the project's include/ folder.
#include "device_common.h"
__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2.0f;
}
int main() {
  float *p = nullptr;
  hipMalloc(&p, 64 * sizeof(float));
  hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, p, 64);
  hipDeviceSynchronize();
  return 0;
}
