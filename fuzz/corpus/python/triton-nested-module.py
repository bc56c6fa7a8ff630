# An own nn.Module used as a submodule is followed into its forward.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


class Inner(torch.nn.Module):
    def forward(self, x):
        # CHECK: triton-nested-module.py:[[@LINE+1]]:16: warning: call to 'at::Tensor::exp' delegates compute
        return x.exp()
# CHECK-NEXT: note: reached from entry 'ModelNew.forward' -> 'Inner.forward'


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x, y):
        out = torch.empty_like(x)
        add_kernel[(1,)](x, y, out, out.numel(), BLOCK=1024)
        return self.inner(out)
# CHECK: verdict: fallback
