// Delegation hidden in the submission's own macro: the note points into the
// macro.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
#define FAST_PATH(a, b) at::mm(a, b)
__global__ void k(float *x) { x[0] = 0; }
torch::Tensor forward(torch::Tensor x, torch::Tensor w) {
  k<<<1, 1>>>(x.data_ptr<float>());
  // CHECK: :[[@LINE+2]]:10: warning: call to 'at::mm' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  // CHECK: :6:25: note: expanded from macro 'FAST_PATH'
  return FAST_PATH(x, w);
}
// CHECK: verdict: fallback
