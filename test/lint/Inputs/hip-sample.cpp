#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>
__global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i < n)
    c[i] = a[i] + b[i];
}
int main() {
  const int n = 1024;
  std::vector<float> h(n, 1.0f);
  float *a, *b, *c;
  hipMalloc(&a, n * sizeof(float));
  hipMalloc(&b, n * sizeof(float));
  hipMalloc(&c, n * sizeof(float));
  hipMemcpy(a, h.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(vadd, dim3(n / 256), dim3(256), 0, 0, a, b, c, n);
  hipDeviceSynchronize();
  printf("ok\n");
  return 0;
}
