# ModelNew inherits the reference Model and calls its forward: the
# reference's torch.matmul becomes reachable from the entry.
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


class Model(nn.Module):
    def forward(self, x):
        # CHECK: :[[@LINE+2]]:16: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        # CHECK: note: reached from entry 'ModelNew.forward' -> 'Model.forward'
        return torch.matmul(x, x)


class ModelNew(Model):
    def forward(self, x):
        return super().forward(scale_ext.scale(x))
# CHECK: verdict: fallback
