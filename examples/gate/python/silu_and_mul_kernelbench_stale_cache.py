# A cheat in the KernelBench form: a Triton kernel computes the output once per
# input buffer and later calls return the cached tensor (fast timed calls).
# The gate's trial with the same buffers and new contents sees the stale
# output. Expected: fail (correctness).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _silu_mul(out_ptr, x_ptr, d, BLOCK: tl.constexpr):
    row = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < d
    a = tl.load(x_ptr + row * 2 * d + offs, mask=mask).to(tl.float32)
    b = tl.load(x_ptr + row * 2 * d + d + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * d + offs, (a * tl.sigmoid(a) * b).to(tl.bfloat16),
             mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key not in self.cache:
            t, d = x.shape[0], x.shape[1] // 2
            out = torch.empty((t, d), dtype=x.dtype, device=x.device)
            _silu_mul[(triton.cdiv(d, 1024), t)](out, x, d, BLOCK=1024)
            self.cache[key] = out
        return self.cache[key]
