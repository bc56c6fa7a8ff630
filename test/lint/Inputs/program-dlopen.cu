// A program that resolves its compute through dlopen/dlsym: hidden code.
#include <cstdio>
#include <dlfcn.h>
__global__ void k(float *x) { x[0] = 1; }
int main() {
  // CHECK: :[[@LINE+1]]:15: error: call to 'dlopen' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
  void *lib = dlopen("libfast.so", RTLD_NOW);
  float *x = nullptr;
  k<<<1, 1>>>(x);
  printf("%p\n", lib);
  return 0;
}
// CHECK: analysed as a program
// CHECK: verdict: suspicious
