// Compiling kernel source at run time escapes the static analysis.
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <nvrtc.h>
__global__ void k(float *x) { x[0] = 0; }
void entry(float *a) {
  nvrtcProgram p;
  k<<<1, 1>>>(a);
  // CHECK: :[[@LINE+1]]:3: error: call to 'nvrtcCreateProgram' compiles code at run time [atrex-evasion-runtime-compile]
  nvrtcCreateProgram(&p, "extern \"C\" __global__ void g() {}", "g.cu", 0,
                     nullptr, nullptr);
  // CHECK: :[[@LINE+1]]:3: error: call to 'nvrtcCompileProgram' compiles code at run time
  nvrtcCompileProgram(p, 0, nullptr);
}
// CHECK: verdict: suspicious
