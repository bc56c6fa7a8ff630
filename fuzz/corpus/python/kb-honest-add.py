# An honest KernelBench submission with decoys: torch calls in the docstring,
# in comments, in __init__ (weight setup), in the reference Model class of the
# same file and in a string that is not a source.
# REQUIRES: torch, cuda
# RUN: atrex-lint --inventory %s | FileCheck %s
# CHECK-NOT: warning
# CHECK: kernel 'scale_kernel' at {{.*}}kb-honest-add.py:16:17: launched
# CHECK: entry 'ModelNew.forward'
# CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# torch.matmul(a, b) would be easier; we write the kernel ourselves.
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

NOTE = "this string mentions torch.matmul(x, x) but is not code"


class Model(nn.Module):
    """The reference: compute with PyTorch."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.matmul(x, x) * 2


class ModelNew(nn.Module):
    """Same as Model without torch.matmul: calls our scale kernel."""

    def __init__(self):
        super().__init__()
        self.ext = scale_ext
        self.proj = nn.Linear(16, 16)  # weights only, never called
        torch.nn.init.xavier_uniform_(self.proj.weight)
        self.bias = nn.Parameter(torch.randn(16))

    def forward(self, x):
        # F.relu(x) was the first attempt; replaced by the kernel
        return self.ext.scale(x.contiguous())
