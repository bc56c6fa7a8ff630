# Operators on tensors stay compute: a helper's parameters are tensors when
# a caller passes tensors, or when the helper uses them as tensors.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def blend(a, b):
    # CHECK: triton-tensor-operators.py:[[@LINE+1]]:14: warning: call to 'at::operator+' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    return a + b


def rescale(t, factor):
    t = t.contiguous()
    # CHECK: triton-tensor-operators.py:[[@LINE+1]]:14: warning: call to 'at::operator*' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    return t * factor


def custom_kernel(data):
    x, y = data
    out = torch.empty_like(x)
    copy_kernel[(1,)](x, out, out.numel(), BLOCK=1024)
    return rescale(blend(out, y), 0.5)
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::operator+); fallback: PyTorch/ATen (at::operator*))
