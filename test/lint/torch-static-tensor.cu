// Caching the output tensor across calls.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
__global__ void k(const float *x, float *y) { y[0] = x[0]; }
torch::Tensor forward(torch::Tensor x) {
  // CHECK: :[[@LINE+1]]:24: warning: static local 'cached' of type 'torch::Tensor' keeps state between calls of the entry and can cache outputs [atrex-evasion-static-state]
  static torch::Tensor cached;
  if (cached.defined())
    return cached;
  auto y = torch::empty_like(x);
  k<<<1, 1>>>(x.data_ptr<float>(), y.data_ptr<float>());
  cached = y;
  return y;
}
// CHECK: verdict: suspicious
