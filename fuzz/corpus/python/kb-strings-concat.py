# Sources built from concatenated literals, module-level constants, an
# f-string without placeholders, textwrap.dedent and a list: every C++ line
# keeps its Python line.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import textwrap
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

HEADER = "#include <torch/extension.h>\n"
KERNEL = textwrap.dedent("""
    __global__ void k(float* y, int n) {
      if (threadIdx.x < n) y[threadIdx.x] = 1.f;
    }
    """)
WRAPPER = (f"torch::Tensor run(torch::Tensor x) {{\n"
           "  k<<<1, 32>>>(x.data_ptr<float>(), x.numel());\n"
           # CHECK: kb-strings-concat.py:[[@LINE+1]]:22: warning: call to 'at::mm' delegates compute to PyTorch/ATen [atrex-delegation-torch]
           "  return at::mm(x, x);\n"
           "}\n")
ext = load_inline("strings", [HEADER + "torch::Tensor run(torch::Tensor x);"],
                  [HEADER + KERNEL, WRAPPER], functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::mm))
