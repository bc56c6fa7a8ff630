# RMSNorm: builder called in __init__, the launcher kept on the module.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import gpu, range_constexpr
from flydsl.expr import math as fmath

THREADS = 256
WAVE = 64


def make_rmsnorm(hidden: int, eps: float):
    @flyc.kernel
    def rmsnorm_kernel(X: fx.Tensor, W: fx.Tensor, Y: fx.Tensor):
        row = fx.block_idx.x
        tid = fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        wb = fx.rocdl.make_buffer_tensor(W)
        yb = fx.rocdl.make_buffer_tensor(Y)
        acc = fx.Float32(0.0)
        for j in range_constexpr(hidden // THREADS):
            v = xb[row * hidden + tid + j * THREADS]
            acc = acc + v * v
        for s in range_constexpr(6):
            acc = acc + acc.shuffle_xor(WAVE >> (s + 1), WAVE)
        gpu.barrier()
        r = fmath.rsqrt(acc / float(hidden) + eps)
        for j in range_constexpr(hidden // THREADS):
            k = tid + j * THREADS
            yb[row * hidden + k] = xb[row * hidden + k] * r * wb[k]

    @flyc.jit
    def launch(X: fx.Tensor, W: fx.Tensor, Y: fx.Tensor, rows: fx.Int32,
               stream: fx.Stream = fx.Stream(None)):
        rmsnorm_kernel(X, W, Y).launch(grid=(rows, 1, 1), block=(THREADS, 1, 1), stream=stream)

    return launch


class ModelNew(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps
        self._launch = make_rmsnorm(hidden_size, eps)

    def forward(self, x):
        out = torch.empty_like(x)
        self._launch(x, self.weight.detach(), out, x.shape[0])
        return out
