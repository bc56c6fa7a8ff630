# The kernel is defined but the exported function never launches it.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
__global__ void never_kernel(float* y) { y[threadIdx.x] = 1.f; }
torch::Tensor run(torch::Tensor x) {
  return x.view({-1});
}
"""

ext = load_inline(name="ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: kb-kernel-unlaunched.py:10:17: warning: kernel 'never_kernel' is defined but never launched
# CHECK: error: none of the 1 kernel defined is launched from the entry [atrex-no-kernel]
# CHECK: verdict: no-kernel
