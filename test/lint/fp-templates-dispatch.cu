// Functor-templated kernels dispatched on dtype through a switch and
// template helpers: every branch launches an own kernel.
// RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK-DAG: kernel 'apply<float, Silu>' at {{.*}}: launched
// CHECK-DAG: kernel 'apply<double, Silu>' at {{.*}}: launched
// CHECK: verdict: adopted
#include <cuda_runtime.h>
struct Silu {
  template <typename T> __device__ T operator()(T v) const {
    return v / (T(1) + exp(-v));
  }
};
template <typename T, typename Op>
__global__ void apply(T *x, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = op(x[i]);
}
template <typename T> static void launch(void *x, int n, cudaStream_t s) {
  apply<<<(n + 255) / 256, 256, 0, s>>>(static_cast<T *>(x), n, Silu{});
}
void silu(void *x, int n, int dtype, cudaStream_t s) {
  switch (dtype) {
  case 0:
    launch<float>(x, n, s);
    break;
  case 1:
    launch<double>(x, n, s);
    break;
  }
}
