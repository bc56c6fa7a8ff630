# Negative: a ctypes handle used for a library's ordinary functions (NVTX
# ranges around an honest Triton kernel) names those functions after the
# loader and matches no rule; only the load, at import, is outside the entry.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: error:
# CHECK-NOT: warning:
# CHECK: verdict: adopted
import ctypes

import torch
import triton
import triton.language as tl

_nvtx = ctypes.CDLL("libnvToolsExt.so.1")


@triton.jit
def _double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def custom_kernel(data):
    (x,) = data
    y = torch.empty_like(x)
    _nvtx.nvtxRangePushA(b"double")
    _double[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    _nvtx.nvtxRangePop()
    return y
