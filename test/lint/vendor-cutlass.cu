// A CUTLASS device-level operator runs CUTLASS's kernels, not the
// submission's own.
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs 2>&1 | FileCheck %s
#include <cutlass/gemm/device/gemm.h>
__global__ void k(float *x) { x[0] = 0; }
using Gemm = cutlass::gemm::device::Gemm<float, float, float>;
void entry(float *x) {
  k<<<1, 1>>>(x);
  Gemm op;
  // CHECK: :[[@LINE+1]]:5: warning: call to 'cutlass::gemm::device::Gemm::operator()' delegates compute to CUTLASS device-level operator [atrex-delegation-vendor]
  op({128, 128, 128});
}
// CHECK: verdict: fallback
