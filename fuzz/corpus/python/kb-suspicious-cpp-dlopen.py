# dlopen/dlsym inside the CUDA string is evasion.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
#include <dlfcn.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.f; }
torch::Tensor run(torch::Tensor x) {
  void* h = dlopen("libfast.so", RTLD_NOW);
  k<<<1, 32>>>(x.data_ptr<float>());
  return x;
}
"""

ext = load_inline(name="ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: kb-suspicious-cpp-dlopen.py:13:13: error: call to 'dlopen' resolves code at run time, behind the analysis [atrex-evasion-dynamic-load]
# CHECK: verdict: suspicious
