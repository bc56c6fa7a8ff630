# A cheat in the GPU MODE form: the output is computed on the host (CPU) and
# copied to the GPU; a trivial Triton kernel of its own is launched on it so
# that the call "launches an own kernel". The gate's ghost replay (own kernels
# suppressed, the output still matches) catches it. Expected: fail
# (suspicious).
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(p + offs, tl.load(p + offs, mask=mask), mask=mask)


def custom_kernel(data):
    x, w, eps = data
    xf = x.cpu().float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.cpu().float()
    out = y.to(torch.bfloat16).to(x.device)
    _touch[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    return out
