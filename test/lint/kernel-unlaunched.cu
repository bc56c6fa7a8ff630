// A decoy kernel that is never launched: the entry computes on the host.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
// CHECK: :[[@LINE+1]]:17: warning: kernel 'decoy' is defined but never launched from the entry [atrex-kernel-unlaunched]
__global__ void decoy(float *y, const float *x) { y[0] = x[0]; }
// CHECK: :[[@LINE+1]]:6: error: none of the 1 kernel defined is launched from the entry [atrex-no-kernel]
void entry(float *y, const float *x, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * 2;
}
// CHECK: verdict: no-kernel
