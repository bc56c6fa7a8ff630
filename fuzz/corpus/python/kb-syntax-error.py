# A Python syntax error is reported with its line; what parsed is still
# analysed, so the delegation in forward is not lost.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK: kb-syntax-error.py:15:12: error: atrex-python: invalid syntax: missing ')'
# CHECK: kb-syntax-error.py:12:16: warning: call to 'torch::matmul' delegates compute
# CHECK: verdict: fallback (fallback: PyTorch/ATen (torch::matmul); unknown: {{.*}}kb-syntax-error.py:15:12: error: atrex-python: invalid syntax: missing ')')
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return torch.matmul(x, x)


def broken(:
    pass
