// A pool stream joined back through a CUDAEvent (record on the side stream,
// block the current one) is fine.
// REQUIRES: torch
// RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
// CHECK-NOT: warning:
// CHECK: verdict: adopted
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
__global__ void k(float *x) { x[0] = 0; }
torch::Tensor forward(torch::Tensor x) {
  auto current = at::cuda::getCurrentCUDAStream();
  auto side = at::cuda::getStreamFromPool();
  k<<<1, 1, 0, side.stream()>>>(x.data_ptr<float>());
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(current);
  return x;
}
