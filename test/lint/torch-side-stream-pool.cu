// A stream from PyTorch's pool that is never joined back.
// REQUIRES: torch
// RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void k(float *x) { x[0] = 0; }
torch::Tensor forward(torch::Tensor x) {
  // CHECK: :[[@LINE+1]]:15: warning: stream created by 'c10::cuda::getStreamFromPool' is never joined back
  auto side = at::cuda::getStreamFromPool();
  k<<<1, 1, 0, side.stream()>>>(x.data_ptr<float>());
  return x;
}
// CHECK: verdict: suspicious
