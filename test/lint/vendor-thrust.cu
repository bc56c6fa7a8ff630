// Thrust algorithms launched from the host are delegation; pointer glue is
// not.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *x, int n) {
  thrust::device_ptr<float> p = thrust::device_pointer_cast(x);
  k<<<1, 1>>>(thrust::raw_pointer_cast(p));
  // CHECK: :[[@LINE+1]]:3: warning: call to 'thrust::sort' delegates compute to Thrust [atrex-delegation-vendor]
  thrust::sort(thrust::device, x, x + n);
}
// CHECK-NOT: device_pointer_cast
// CHECK: verdict: fallback (fallback: Thrust (thrust::sort))
