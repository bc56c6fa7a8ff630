# GPU MODE: custom_kernel(data) launches a Triton kernel.
# RUN: atrex-lint --inventory %s | FileCheck %s
# CHECK-NOT: warning
# CHECK: kernel 'add_kernel' at {{.*}}gm-honest-triton.py:13:5: launched
# CHECK: entry 'custom_kernel'
# CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
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


def custom_kernel(data):
    """torch.add(x, y) is the reference."""
    x, y = data
    out = torch.empty_like(x)
    n = out.numel()
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK=1024)
    return out
