// HIP: loading a code object at run time is suspicious.
// REQUIRES: hip
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <hip/hip_runtime.h>
static const unsigned char hsaco[16] = {0x7f, 'E', 'L', 'F'};
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  hipModule_t m;
  hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, a);
  // CHECK: :[[@LINE+1]]:3: error: call to 'hipModuleLoadData' loads a GPU image the submission did not compile (embedded image 'hsaco' (16 bytes)) [atrex-evasion-module-load]
  hipModuleLoadData(&m, hsaco);
}
// CHECK: verdict: suspicious
