// torch::zeros launches an ATen fill kernel: allocate with empty and clear in
// an own kernel (or cudaMemsetAsync) instead.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
__global__ void acc(const float *x, float *y, int n) {
  atomicAdd(y, x[threadIdx.x % n]);
}
torch::Tensor total(torch::Tensor x) {
  // CHECK: :[[@LINE+1]]:12: warning: call to 'torch::zeros' delegates compute to PyTorch/ATen [atrex-delegation-torch]
  auto y = torch::zeros({1}, x.options());
  acc<<<1, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
// CHECK: verdict: fallback
