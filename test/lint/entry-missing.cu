// Naming an entry point the submission does not define is an error; the
// verdict is unknown, never adopted.
// RUN: not atrex-lint --no-snippets --entry=nope %s 2>&1 | FileCheck %s
// CHECK: verdict: unknown
// CHECK-SAME: entry point 'nope' is not defined
__global__ void k(float *x) { x[0] = 1; }
void entry(float *x) { k<<<1, 1>>>(x); }
