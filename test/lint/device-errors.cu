// Compiler errors inside kernels and device functions (where clang's CUDA and
// nvcc disagree on intrinsics' overloads) leave the host side intact: a note,
// and the verdict stands on what the host defines, launches and calls. An
// error in host code still makes the verdict 'unknown'.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %s -- -DHOST_ERROR 2>&1 | FileCheck %s --check-prefix=HOST
#include <cuda_runtime.h>
struct Packed {
  float a, b;
};
__device__ void store(Packed *p, Packed v) { nvcc_only_intrinsic(p, v); }
__global__ void k(Packed *p) { store(p, Packed{1, 2}); }
int main() {
  Packed *p = nullptr;
  k<<<1, 1>>>(p);
#ifdef HOST_ERROR
  host_function_nobody_declared(p);
#endif
  return 0;
}
// CHECK: note: 1 compiler error(s) inside kernels or device functions (clang and nvcc disagree there); the host side was analysed [atrex-device-errors]
// CHECK: verdict: adopted
// HOST: verdict: unknown
