// Host-launched device-wide CUB algorithms are delegation; the same library's
// block-level primitives inside an own kernel are not (fp-cub-block.cu).
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cub/cub.cuh>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *in, float *out, int n, void *tmp, size_t bytes) {
  k<<<1, 1>>>(in);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cub::DeviceReduce::Sum' delegates compute to CUB device-wide algorithm [atrex-delegation-vendor]
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
}
// CHECK: verdict: fallback
