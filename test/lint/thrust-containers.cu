// Thrust containers used as buffers around an own kernel are glue, and so is
// an algorithm given a host execution policy (it runs on the CPU, here to
// prepare the input); a Thrust algorithm on the device is delegation.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %S/Inputs/thrust-algorithm.cu 2>&1 | FileCheck %S/Inputs/thrust-algorithm.cu
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2;
}
int main() {
  thrust::host_vector<float> h(256, 1.0f);
  thrust::sort(thrust::host, h.begin(), h.end());
  thrust::device_vector<float> d = h;
  k<<<1, 256>>>(thrust::raw_pointer_cast(d.data()), int(d.size()));
  h = d;
  return h[0] == 2.0f ? 0 : 1;
}
