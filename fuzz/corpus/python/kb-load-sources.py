# torch.utils.cpp_extension.load with sources on disk (relative to the
# Python file): the .cu file is analysed, its findings keep its own lines.
# REQUIRES: torch, cuda
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
from torch.utils import cpp_extension

ext = cpp_extension.load(name="gemm", sources=["Inputs/gemm_matmul.cu"])


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return ext.gemm(a, b)
# CHECK: gemm_matmul.cu:9:7: warning: call to 'at::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
# CHECK: note: reached from entry 'ModelNew.forward' -> 'gemm'
# CHECK: verdict: fallback
