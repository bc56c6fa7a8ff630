// Library code (what a compiler plugin sees in a normal build): kernels whose
// launches live in another file are not 'unlaunched', every host function is
// reported on its own, and delegation is still named.
// RUN: not atrex-lint --no-snippets --mode=library %s 2>&1 | FileCheck %s
// RUN: atrex-lint --no-snippets --mode=library %S/Inputs/library-clean.cu 2>&1 | FileCheck %S/Inputs/library-clean.cu
// Functions of the headers a file includes are judged through its calls.
// RUN: atrex-lint --no-snippets %S/Inputs/library-headers/gelu.cu 2>&1 | FileCheck %S/Inputs/library-headers/gelu.cu
// RUN: not atrex-lint --no-snippets %S/Inputs/library-headers/dense.cu 2>&1 | FileCheck %S/Inputs/library-headers/dense.cu
#include <cublas_v2.h>
#include <cuda_runtime.h>

// CHECK-NOT: atrex-kernel-unlaunched
__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

namespace detail {
// Not externally visible, called by nobody here: still reported.
inline void gemm(cublasHandle_t h, const float *a, const float *b, float *c,
                 int n) {
  const float one = 1, zero = 0;
  // CHECK: :[[@LINE+1]]:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero,
              c, n);
}
} // namespace detail
// CHECK: analysed as a library: set with --mode=library
// CHECK: verdict: fallback
