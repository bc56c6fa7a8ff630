# Only a class, whose method launches the module's own kernel: adopted.
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(dst + offs, -tl.load(src + offs, mask=keep), mask=keep)


class Negate:
    def apply(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        _neg_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
