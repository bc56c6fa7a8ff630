# Loading a shared library with ctypes is evasion (dynamic load).
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
import ctypes
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
        self.out = None

    def forward(self, x):
        # CHECK: :[[@LINE+1]]:15: error: call to 'ctypes::CDLL' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
        lib = ctypes.CDLL("libfast.so")
        return scale_ext.scale(x)
# CHECK: verdict: suspicious
