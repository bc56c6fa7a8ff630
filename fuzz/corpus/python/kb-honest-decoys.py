# Decoys that never run: a constant-false branch, an unreachable helper,
# a nested reference model, and glue (empty, views, shapes) in forward.
# REQUIRES: torch, cuda
# RUN: atrex-lint %s | FileCheck %s
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


torch.backends.cudnn.benchmark = True  # a flag, not a patched function


def reference(x):
    return torch.nn.functional.gelu(x) + torch.sum(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if False:
            return reference(x)
        n, c = x.shape[0], x.size(1)
        flat = x.contiguous().view(-1).reshape(n, c)
        out = torch.empty_like(flat)
        out = scale_ext.scale(flat)
        return out.view(n, c)
