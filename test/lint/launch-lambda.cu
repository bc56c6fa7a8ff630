// A launch inside a lambda (dispatch-style code) is found.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
__global__ void fill(int *x, int v) { x[threadIdx.x] = v; }
template <typename F> static void dispatch(int dtype, F &&f) {
  if (dtype == 0)
    f();
}
void entry(int *x, int dtype) {
  dispatch(dtype, [&] { fill<<<1, 64>>>(x, 7); });
}
