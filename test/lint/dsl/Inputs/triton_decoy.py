# A FlyDSL-track submission that does the work in torch and launches a Triton
# kernel on the result (two reasons: delegation, and a kernel off the DSL).
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 1.0, mask=mask)


def custom_kernel(data):
    a, b = data
    c = torch.matmul(a, b)
    out = torch.empty_like(c)
    n = out.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](c, out, n, BLOCK=1024)
    return out
