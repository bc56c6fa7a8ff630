# GPU MODE: an assignment into a slice of a tensor is an ATen copy kernel.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch


def custom_kernel(data):
    src, dst = data
    # CHECK: gm-fallback-subscript-copy.py:[[@LINE+1]]:5: warning: call to 'at::Tensor::copy_' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    dst[...] = src
    return dst
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::Tensor::copy_)
