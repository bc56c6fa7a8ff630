# cublasSgemm inside the CUDA string is vendor delegation.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
#include <cublas_v2.h>
__global__ void unused_kernel(float* y) { y[threadIdx.x] = 0.f; }
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  cublasHandle_t h;
  cublasCreate(&h);
  float one = 1.f, zero = 0.f;
  int n = x.size(0);
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, x.data_ptr<float>(), n,
              x.data_ptr<float>(), n, &zero, y.data_ptr<float>(), n);
  return y;
}
"""

ext = load_inline(name="ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                  cuda_sources=cuda_src, functions=["run"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.run(x)
# CHECK: kb-fallback-cpp-cublas.py:11:17: warning: kernel 'unused_kernel' is defined but never launched
# CHECK-NOT: warning: call to 'cublasCreate_v2'
# CHECK: kb-fallback-cpp-cublas.py:18:3: warning: call to 'cublasSgemm_v2' delegates compute to cuBLAS [atrex-delegation-vendor]
# CHECK: verdict: fallback (fallback: cuBLAS (cublasSgemm_v2)
