// CuTe inside an own kernel is the DSL; a CUTLASS device-level operator
// called from the host is delegation. The headers come from PyPI
// nvidia-cutlass, found without flags.
// REQUIRES: cutlass
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets %S/Inputs/cutlass-device-gemm.cu 2>&1 | FileCheck %S/Inputs/cutlass-device-gemm.cu
// CHECK-NOT: error:
// CHECK: verdict: adopted
#include <cute/tensor.hpp>
using namespace cute;
__global__ void copy_kernel(const float *in, float *out, int n) {
  Tensor src = make_tensor(make_gmem_ptr(in), make_shape(n));
  Tensor dst = make_tensor(make_gmem_ptr(out), make_shape(n));
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    dst(i) = src(i);
}
int main() {
  float *a = nullptr, *b = nullptr;
  copy_kernel<<<1, 128>>>(a, b, 1024);
  return 0;
}
