# Comparisons and arithmetic on values not known to be tensors (untyped int
# parameters, None, shapes, ndim, len, constants) are not compute; `is` and
# `in` never are.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: at::operator
# CHECK: verdict: adopted
import math
import torch
import triton
import triton.language as tl

_SUPPORTED = [torch.float16, torch.bfloat16, torch.float32]


@triton.jit
def pick_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def use_split(inp, rows, cols, depth):
    return depth > rows * 4 and inp.dtype in _SUPPORTED and cols != rows


def pick(inp, dim=None, chunk=64, *, dtype=None):
    tile = chunk
    inner = 16
    assert tile % inner == 0
    if dim is None:
        dim = 0
    if dtype is not None and dtype not in _SUPPORTED:
        raise ValueError("dtype")
    assert dim >= -inp.ndim and dim < inp.ndim
    dim = dim % inp.ndim
    n = inp.numel()
    if n == 0 or len(inp.shape) < 1 or inp.stride(dim) != 1:
        return inp
    rows = math.prod(inp.shape[:dim])
    if use_split(inp, rows, inp.shape[dim], n // rows):
        tile = tile * 2
    out = torch.empty_like(inp)
    pick_kernel[(triton.cdiv(n, tile),)](inp, out, n, BLOCK=tile)
    return out
