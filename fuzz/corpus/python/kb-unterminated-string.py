# An unterminated string literal: a clear error naming the file and line.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s --check-prefix=VERDICT
import torch
from torch.utils.cpp_extension import load_inline

# CHECK: kb-unterminated-string.py:[[@LINE+1]]:12: error: atrex-python: unterminated string literal
cuda_src = "__global__ void k(float* y) { y[0] = 1.f; }
# VERDICT: verdict: unknown
