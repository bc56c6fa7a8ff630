// A launch only in a function that nothing reachable calls does not count.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// CHECK: :[[@LINE+1]]:17: warning: kernel 'k' is defined but never launched from the entry [atrex-kernel-unlaunched]
__global__ void k(float *x) { x[0] = 1; }
static void never_called(float *x) { k<<<1, 1>>>(x); }
void entry(float *x) { x[0] = 1; }
// CHECK: verdict: no-kernel
