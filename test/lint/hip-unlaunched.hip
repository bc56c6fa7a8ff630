// HIP: a kernel that is never launched.
// REQUIRES: hip
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <hip/hip_runtime.h>
// CHECK: :[[@LINE+1]]:17: warning: kernel 'k' is defined but never launched from the entry
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a, int n) {
  for (int i = 0; i < n; ++i)
    a[i] = 0;
}
// CHECK: verdict: no-kernel
