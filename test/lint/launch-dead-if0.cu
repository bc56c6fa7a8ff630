// A launch under a constant-false condition never runs.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 1; }
void entry(float *x) {
  // CHECK: :[[@LINE+1]]:10: warning: launch of kernel 'k' never executes (constant-false condition or unreachable code) [atrex-launch-dead]
  if (0) k<<<1, 1>>>(x);
}
// CHECK: verdict: no-kernel
