// Constant flags and `if constexpr` branches that are never taken.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 1; }
constexpr bool kUseKernel = false;
#define ENABLE_GPU 0
void entry(float *x) {
  if (kUseKernel)
    // CHECK: :[[@LINE+1]]:5: warning: launch of kernel 'k' never executes
    k<<<1, 1>>>(x);
  if constexpr (ENABLE_GPU)
    // CHECK: :[[@LINE+1]]:5: warning: launch of kernel 'k' never executes
    k<<<1, 1>>>(x);
  while (false)
    // CHECK: :[[@LINE+1]]:5: warning: launch of kernel 'k' never executes
    k<<<1, 1>>>(x);
  x[0] = 2;
}
// CHECK: verdict: no-kernel
