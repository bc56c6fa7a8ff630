# The kernel handles aligned shapes; everything else goes to torch (a reachable fallback path).
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import math as fmath


@flyc.kernel
def silu_kernel(X: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * 256 + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    v = xb[i]
    yb[i] = v / (1.0 + fmath.exp(-v))


@flyc.jit
def silu(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    silu_kernel(X, Y).launch(grid=(n // 256, 1, 1), block=(256, 1, 1))


class ModelNew(nn.Module):
    def forward(self, x):
        if x.numel() % 256 != 0:
            return torch.nn.functional.silu(x)
        y = torch.empty_like(x)
        silu(x.view(-1), y.view(-1), x.numel())
        return y
