# A Python vendor library (flash_attn) around a Triton kernel is delegation.
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
from flash_attn import flash_attn_func


def custom_kernel(data):
    q, k, v = data
    out = torch.empty_like(q)
    add_kernel[(1,)](q, k, out, out.numel(), BLOCK=1024)
    # CHECK: triton-vendor.py:[[@LINE+1]]:12: warning: call to 'flash_attn::flash_attn_func' delegates compute to vendor library (Python) [atrex-delegation-vendor]
    return flash_attn_func(out, k, v)
# CHECK: verdict: fallback
