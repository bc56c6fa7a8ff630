// A benchmark helper that calls the launcher it is given (llm.c's
// benchmark_kernel): the call through the parameter is resolved when every
// caller passes a function of the submission, and the launch is reached.
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --mode=submission --no-snippets %S/Inputs/launch-through-parameter-unknown.cu 2>&1 | FileCheck %S/Inputs/launch-through-parameter-unknown.cu
// CHECK-NOT: atrex-evasion-indirect-call
// CHECK-NOT: atrex-kernel-unlaunched
// CHECK: verdict: adopted (adopted: 1 own kernel launched from 'main', no delegation)
#include <cuda_runtime.h>
__global__ void scale(float *x, int n) {
  if (threadIdx.x < n)
    x[threadIdx.x] *= 2;
}
void scale_launch(float *x, int n) { scale<<<1, 256>>>(x, n); }
template <class Launcher, class... Args>
float benchmark(int repeats, Launcher launch, Args &&...args) {
  for (int i = 0; i < repeats; ++i)
    launch(args...);
  return 0;
}
int main() {
  float *x = nullptr;
  cudaMalloc(&x, 1024);
  benchmark(10, scale_launch, x, 256);
  return 0;
}
