// Kernels and launch helpers only: adopted as library code.
#include <cuda_runtime.h>
__global__ void add(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] += a[i];
}
__global__ void unusedHere(float *x) { x[0] = 0; }
void launchAdd(const float *a, float *b, int n, cudaStream_t s) {
  add<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
}
// CHECK-NOT: warning:
// CHECK: verdict: adopted (adopted: library code: 2 own kernel(s) defined, no delegation or evasion (launches are not required in library mode))
