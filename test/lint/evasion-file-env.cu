// Reading the environment (secret seeds) or files.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <cstdio>
#include <cstdlib>
__global__ void k(float *x, unsigned s) { x[0] = s; }
void entry(float *a) {
  // CHECK: :[[@LINE+1]]:22: warning: call to 'getenv' accesses files or the environment [atrex-evasion-file-env]
  const char *seed = getenv("ATREX_SEED");
  // CHECK: :[[@LINE+1]]:13: warning: call to 'fopen' accesses files or the environment
  FILE *f = fopen("/tmp/expected.bin", "rb");
  k<<<1, 1>>>(a, seed ? seed[0] : 0);
  (void)f;
}
// CHECK: verdict: suspicious
