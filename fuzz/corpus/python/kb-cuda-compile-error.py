# A C++ error in the CUDA string is reported at its Python line; the verdict is unknown.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.f; }
torch::Tensor run(torch::Tensor x) {
  k<<<1, 32>>>(x.data_ptr<float>());
  return undefined_function(x);
}
"""

ext = load_inline(name="ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: kb-cuda-compile-error.py:13:10: error: use of undeclared identifier 'undefined_function'
# CHECK: verdict: unknown
