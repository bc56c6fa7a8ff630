// A launch written through the submission's own macro is found.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#define LAUNCH_1D(kernel, n, ...)                                              \
  kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)
__global__ void relu(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0)
    x[i] = 0;
}
void entry(float *x, int n) { LAUNCH_1D(relu, n, x, n); }
