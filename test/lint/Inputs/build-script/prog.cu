// Compiles only as its build script builds it (-DSHMOO), as HIP-Examples'
// mini-nbody does: the #else branch names an undeclared variable.
#include <cstdio>
__global__ void step(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1.0f;
}
int main() {
  float *d;
  cudaMalloc(&d, 256 * sizeof(float));
  step<<<1, 256>>>(d, 256);
  double avg = 1.0;
#ifdef SHMOO
  printf("%0.3f\n", avg);
#else
  printf("%.3f +- %.3f\n", avg, rate);
#endif
  cudaFree(d);
}
