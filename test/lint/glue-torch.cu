// PyTorch host glue around own kernels: outputs allocated filled (zeros,
// ones, full, *_like, new_*), fills, casts and device moves. Allowed and named
// in a note; the strict policy makes each one delegation. Compute stays
// delegation in both.
// REQUIRES: torch
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// RUN: not atrex-lint --no-snippets --policy=strict %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not atrex-lint --no-snippets %S/Inputs/glue-compute.cu 2>&1 | FileCheck %S/Inputs/glue-compute.cu
#include <torch/extension.h>
__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}
torch::Tensor forward(torch::Tensor x) {
  // CHECK: :[[@LINE+1]]:12: note: call to 'at::Tensor::cuda' is host glue
  auto g = x.cuda().contiguous();
  // CHECK: :[[@LINE+1]]:12: note: call to 'at::Tensor::to' is host glue
  auto f = g.to(torch::kFloat);
  // CHECK: :[[@LINE+1]]:14: note: call to 'torch::zeros_like' is host glue
  auto out = torch::zeros_like(f);
  // CHECK: :[[@LINE+1]]:15: note: call to 'torch::ones' is host glue
  auto ones = torch::ones({4}, f.options());
  // CHECK: :[[@LINE+1]]:15: note: call to 'torch::full' is host glue
  auto full = torch::full({4}, 2.0f, f.options());
  // CHECK: :[[@LINE+1]]:3: note: call to 'at::Tensor::zero_' is host glue
  ones.zero_();
  // CHECK: :[[@LINE+1]]:3: note: call to 'at::Tensor::fill_' is host glue
  full.fill_(1.0f);
  auto scratch = torch::empty_like(f);
  k<<<(f.numel() + 255) / 256, 256>>>(f.data_ptr<float>(),
                                      out.data_ptr<float>(), f.numel());
  (void)scratch;
  return out;
}
// CHECK-NOT: warning:
// CHECK: verdict: adopted
// STRICT: verdict: fallback (fallback: PyTorch allocation, fill, cast or device move (at::Tensor::cuda)
