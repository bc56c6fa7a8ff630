// Evasion calls that never run (comments, strings, #if 0, false branches,
// unreachable helpers) are not reported.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-NOT: error:
// CHECK: verdict: adopted
#include <dlfcn.h>
#include <cstdlib>
__global__ void k(float *x) { x[0] = 0; }
// dlopen("libcublas.so") was tried and dropped
static const char kDoc[] = "system(\"rm -rf /\")";
#if 0
void *h = dlopen("x.so", 0);
#endif
static void never() { system("true"); }
void entry(float *a) {
  if (false)
    dlopen("libcublas.so", RTLD_NOW);
  k<<<1, 1>>>(a);
}
