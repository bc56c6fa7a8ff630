// A launch after an unconditional return is dead code.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 1; }
void entry(float *x) {
  x[0] = 0;
  return;
  // CHECK: :[[@LINE+1]]:3: warning: launch of kernel 'k' never executes
  k<<<1, 1>>>(x);
}
// CHECK: verdict: no-kernel
