// Includes the header but never calls its cuBLAS helper.
#include "context.h"
__global__ void gelu(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] / (1.0f + __expf(-1.702f * x[i]));
}
void launch_gelu(float *x, int n) { gelu<<<(n + 255) / 256, 256>>>(x, n); }
// CHECK-NOT: cublasSgemm
// CHECK: verdict: adopted
