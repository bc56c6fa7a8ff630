# at::matmul inside the CUDA string: the C++ finding is on the Python line.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
__global__ void relu_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.f ? y[i] : 0.f;
}
torch::Tensor run(torch::Tensor x) {
  auto y = at::matmul(x, x);
  relu_kernel<<<(y.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), y.numel());
  return y;
}
"""

ext = load_inline(name="ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: kb-fallback-cpp-atmatmul.py:15:12: warning: call to 'at::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
# CHECK-NEXT: note: reached from entry 'ModelNew.forward' -> 'run'
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::matmul))
