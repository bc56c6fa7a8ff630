// Loading a library by hand and calling through dlsym's pointer: both the
// loader calls and the unresolvable indirect call are reported.
// RUN: not atrex-lint --mode=submission --no-snippets %s 2>&1 | FileCheck %s
#include <dlfcn.h>
__global__ void k(float *x) { x[0] = 0; }
using gemm_t = int (*)(void *, float *);
void entry(float *a) {
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:15: error: call to 'dlopen' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
  void *lib = dlopen("libcublas.so", RTLD_NOW);
  // CHECK: :[[@LINE+1]]:37: error: call to 'dlsym' resolves code at run time, behind the analysis (symbol "cublasSgemm_v2") [atrex-evasion-dynamic-load]
  auto f = reinterpret_cast<gemm_t>(dlsym(lib, "cublasSgemm_v2"));
  // CHECK: :[[@LINE+1]]:3: warning: call through a function pointer 'f' whose target cannot be resolved [atrex-evasion-indirect-call]
  f(nullptr, a);
}
// CHECK: verdict: suspicious
