// Loading a GPU image embedded as bytes and launching it through the driver
// API: the image is named with its size.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <cuda.h>
static const unsigned char blob[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  CUmodule m;
  CUfunction f;
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: error: call to 'cuModuleLoadData' loads a GPU image the submission did not compile (embedded image 'blob' (8 bytes)) [atrex-evasion-module-load]
  cuModuleLoadData(&m, blob);
  cuModuleGetFunction(&f, m, "gemm");
  void *args[] = {&a};
  cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
}
// CHECK: verdict: suspicious (suspicious: atrex-evasion-module-load (cuModuleLoadData))
