// A dead launch next to a live launch of the same kernel: adopted, but the
// dead one is still reported.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
__global__ void k(float *x) { x[0] = 1; }
void entry(float *x, int n) {
  // CHECK: :[[@LINE+1]]:14: warning: launch of kernel 'k' never executes
  if (false) k<<<1, 1>>>(x);
  if (n > 0) k<<<1, 1>>>(x);
}
// CHECK-NOT: atrex-no-kernel
// CHECK: verdict: adopted
