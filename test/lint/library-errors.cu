// Compiler errors inside system headers only (a header library that nvcc
// compiles and clang rejects: Inputs/sysinc/veclib/vec.cuh, in the style of
// FlashInfer's vec_dtypes.cuh) leave the file's own code intact: a note, and
// the verdict stands on what the file defines, launches and calls. The same
// header on a user include path (-I), or an error in the file's own code
// beside it, keeps the verdict 'unknown'.
// RUN: atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %s -- -I %S/Inputs/sysinc 2>&1 | FileCheck %s --check-prefix=USER
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc -DOWN_ERROR 2>&1 | FileCheck %s --check-prefix=OWN
#include <cuda_runtime.h>
#include <veclib/vec.cuh>

__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

void entry(float *dst, const float *src, int n, cudaStream_t s) {
  veclib::launch_copy<float, 4>(dst, src, n, s);
  scale<<<1, n, 0, s>>>(dst, 2.0f);
#ifdef OWN_ERROR
  undeclared_in_own_code(dst);
#endif
}
// CHECK: note: {{[0-9]+}} compiler error(s) inside system headers (library code clang rejects where nvcc does not); the file's own code was analysed [atrex-library-errors]
// CHECK: verdict: adopted
// USER: verdict: unknown
// OWN: verdict: unknown ({{.*}}undeclared_in_own_code
