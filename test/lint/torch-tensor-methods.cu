// Tensor methods that compute (and operators on tensors) are delegation;
// accessors and views are glue, casts are glue named in a note (delegation
// under --policy=strict).
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --policy=strict %s 2>&1 | FileCheck %s --check-prefix=STRICT
#include <torch/extension.h>
__global__ void k(float *x) { x[0] = 0; }
torch::Tensor forward(torch::Tensor x, torch::Tensor r) {
  auto v = x.view({-1, x.size(-1)}).contiguous();
  k<<<1, 1>>>(v.data_ptr<float>());
  // CHECK: :[[@LINE+2]]:12: note: call to 'at::Tensor::to' is host glue (PyTorch allocation, fill, cast or device move) [atrex-glue-torch]
  // STRICT: :[[@LINE+1]]:12: warning: call to 'at::Tensor::to' is host glue {{.*}}[atrex-glue-torch]
  auto f = v.to(torch::kFloat);
  // CHECK: :[[@LINE+1]]:3: warning: call to 'at::Tensor::copy_' delegates compute to PyTorch/ATen
  r.copy_(f);
  // CHECK: :[[@LINE+1]]:14: warning: call to 'at::operator*' delegates compute to PyTorch/ATen
  auto s = f * 2.0;
  // CHECK: :[[@LINE+1]]:10: warning: call to 'at::Tensor::sum' delegates compute to PyTorch/ATen
  return s.sum(-1);
}
// CHECK-NOT: data_ptr
// CHECK-NOT: 'at::Tensor::view'
// CHECK: verdict: fallback
// STRICT: verdict: fallback (fallback: PyTorch allocation, fill, cast or device move (at::Tensor::to); fallback: PyTorch/ATen
