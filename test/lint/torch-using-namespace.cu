// `using namespace at;` and torch:: spellings resolve to the same ATen ops.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
using namespace at;
namespace F = torch::nn::functional;
__global__ void k(float *x) { x[0] = 0; }
Tensor forward(Tensor x, Tensor w) {
  k<<<1, 1>>>(x.data_ptr<float>());
  // CHECK: :[[@LINE+1]]:12: warning: call to 'at::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  auto y = matmul(x, w);
  // CHECK: :[[@LINE+1]]:7: warning: call to 'torch::nn::functional::silu' delegates compute to PyTorch/ATen
  y = F::silu(y);
  // CHECK: :[[@LINE+1]]:10: warning: call to 'at::softmax' delegates compute to PyTorch/ATen
  return torch::softmax(y, -1);
}
// CHECK: verdict: fallback
