# Imports of the file's own package (named like a vendor library): absolute,
# relative, through the package's __init__, and one whose module is absent.
import torch
import triton
import triton.language as tl

from flash_attn.ops.helpers import pick_block
from .helpers import scale_kernel
from .. import ops
from .missing_mod import tune


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * tl.sigmoid(1.702 * x), mask=m)


def gelu_fast(x):
    out = torch.empty_like(x)
    n = x.numel()
    block = pick_block(n)
    tune(block)
    gelu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    scale_kernel[(triton.cdiv(n, block),)](out, out, n, 0.5, BLOCK=ops.pick_block(n))
    return out
