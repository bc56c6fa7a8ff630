# A Triton kernel is defined but forward computes with torch: fallback, and
# the kernel is reported as never launched.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK: triton-unlaunched.py:11:5: warning: kernel 'add_kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
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


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        # CHECK: triton-unlaunched.py:[[@LINE+1]]:16: warning: call to 'torch::add' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return torch.add(x, y)
# CHECK: verdict: fallback
