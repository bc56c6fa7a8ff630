// A sample that includes its project's helper by name only: its build adds
// -I../../../Common.
#include <helper_check.h>
__global__ void add(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] += a[i];
}
int main() {
  float *a, *b;
  checkErrors(cudaMalloc(&a, 1024));
  checkErrors(cudaMalloc(&b, 1024));
  add<<<1, 256>>>(a, b, 256);
  checkErrors(cudaDeviceSynchronize());
  printf("PASSED\n");
  return 0;
}
