# torch.matmul under a constant-false branch never runs: adopted.
# REQUIRES: torch, cuda
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: warning
# CHECK: verdict: adopted
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
cuda_src = """
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

torch::Tensor scale(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""

cpp_src = "torch::Tensor scale(torch::Tensor x);"

scale_ext = load_inline(name="scale_ext", cpp_sources=cpp_src,
                        cuda_sources=cuda_src, functions=["scale"])


class ModelNew(nn.Module):
    def forward(self, x):
        if False:
            return torch.matmul(x, x)
        return scale_ext.scale(x)
