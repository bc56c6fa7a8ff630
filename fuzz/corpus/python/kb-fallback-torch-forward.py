# torch.matmul in ModelNew.forward is delegation to PyTorch.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
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
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        y = scale_ext.scale(x)
        # CHECK: kb-fallback-torch-forward.py:[[@LINE+1]]:16: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return torch.matmul(y, y)

# CHECK: verdict: fallback (fallback: PyTorch/ATen (torch::matmul))
