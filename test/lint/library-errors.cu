// Compiler errors inside system headers only (a header library that nvcc
// compiles and clang rejects: Inputs/sysinc/veclib/vec.cuh, in the style of
// FlashInfer's vec_dtypes.cuh) leave the file's own code intact: a note, and
// the verdict stands on what the file defines, launches and calls. The same
// header on a user include path (-I), or an error in the file's own code
// beside it, keeps the verdict 'unknown'.
// RUN: atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %s -- -I %S/Inputs/sysinc 2>&1 | FileCheck %s --check-prefix=USER
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc -DOWN_ERROR 2>&1 | FileCheck %s --check-prefix=OWN
// More library errors than clang's error limit (24 instantiations of the
// broken template): clang's location-less "too many errors emitted" continues
// the library errors (regression: FlashInfer's mla.cuh made the verdict
// 'unknown: too many errors emitted'); after an own error it stays one.
// RUN: atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc -DMANY 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not atrex-lint --no-snippets %s -- -isystem %S/Inputs/sysinc -DMANY -DOWN_ERROR 2>&1 | FileCheck %s --check-prefix=OWN
#include <cuda_runtime.h>
#include <veclib/vec.cuh>

__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

void entry(float *dst, const float *src, int n, cudaStream_t s) {
  veclib::launch_copy<float, 4>(dst, src, n, s);
  scale<<<1, n, 0, s>>>(dst, 2.0f);
#ifdef OWN_ERROR
  undeclared_in_own_code(dst);
#endif
#ifdef MANY
#define MANY4(a) veclib::launch_copy<float, a>(dst, src, n, s); veclib::launch_copy<float, a + 1>(dst, src, n, s); \
  veclib::launch_copy<float, a + 2>(dst, src, n, s); veclib::launch_copy<float, a + 3>(dst, src, n, s);
  MANY4(10) MANY4(20) MANY4(30) MANY4(40) MANY4(50) MANY4(60)
#endif
}
// CHECK: note: {{[0-9]+}} compiler error(s) inside system headers (library code clang rejects where nvcc does not); the file's own code was analysed [atrex-library-errors]
// CHECK: verdict: adopted
// MANY: note: {{[0-9]+}} compiler error(s) inside system headers (library code clang rejects where nvcc does not); the file's own code was analysed [atrex-library-errors]
// MANY-NOT: too many errors
// MANY: verdict: adopted
// USER: verdict: unknown
// OWN: verdict: unknown ({{.*}}undeclared_in_own_code
