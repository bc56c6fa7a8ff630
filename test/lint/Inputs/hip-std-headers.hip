#include <algorithm>
#include <hip/hip_runtime.h>
#include <complex>
#include <iostream>
__global__ void scale(std::complex<float> *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = z[i];
}
int main() {
  std::complex<float> *z;
  hipMalloc(&z, 16 * sizeof(*z));
  scale<<<1, 16>>>(z, 16);
  std::cout << std::max(1, 2) << "\n";
  return 0;
}
