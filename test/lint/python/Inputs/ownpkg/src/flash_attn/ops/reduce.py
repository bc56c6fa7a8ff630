# An own kernel, then the package's own helper finishes in PyTorch.
import torch
import triton
import triton.language as tl

from .helpers import finish


@triton.jit
def partial_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def row_sum(x):
    part = torch.empty_like(x)
    partial_kernel[(1,)](x, part, x.numel(), BLOCK=1024)
    return finish(part)
