# LayerNorm in two kernels (row statistics, then normalise) launched from one host function.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import range_constexpr
from flydsl.expr import math as fmath

T = 64


def make_layernorm(n: int, eps: float):
    @flyc.kernel
    def stats_kernel(X: fx.Tensor, Mean: fx.Tensor, Rstd: fx.Tensor):
        row = fx.block_idx.x
        lane = fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        mb = fx.rocdl.make_buffer_tensor(Mean)
        rb = fx.rocdl.make_buffer_tensor(Rstd)
        s = fx.Float32(0.0)
        ss = fx.Float32(0.0)
        for j in range_constexpr(n // T):
            v = xb[row * n + lane + j * T]
            s = s + v
            ss = ss + v * v
        for k in range_constexpr(6):
            s = s + s.shuffle_xor(T >> (k + 1), T)
            ss = ss + ss.shuffle_xor(T >> (k + 1), T)
        mean = s / float(n)
        if lane == 0:
            mb[row] = mean
            rb[row] = fmath.rsqrt(ss / float(n) - mean * mean + eps)

    @flyc.kernel
    def apply_kernel(X: fx.Tensor, Mean: fx.Tensor, Rstd: fx.Tensor, W: fx.Tensor,
                     Bias: fx.Tensor, Y: fx.Tensor):
        row = fx.block_idx.x
        lane = fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        yb = fx.rocdl.make_buffer_tensor(Y)
        wb = fx.rocdl.make_buffer_tensor(W)
        bb = fx.rocdl.make_buffer_tensor(Bias)
        m = fx.rocdl.make_buffer_tensor(Mean)[row]
        r = fx.rocdl.make_buffer_tensor(Rstd)[row]
        for j in range_constexpr(n // T):
            c = lane + j * T
            yb[row * n + c] = (xb[row * n + c] - m) * r * wb[c] + bb[c]

    @flyc.jit
    def launch(X: fx.Tensor, Mean: fx.Tensor, Rstd: fx.Tensor, W: fx.Tensor, Bias: fx.Tensor,
               Y: fx.Tensor, rows: fx.Int32, stream: fx.Stream = fx.Stream(None)):
        stats_kernel(X, Mean, Rstd).launch(grid=(rows, 1, 1), block=(T, 1, 1), stream=stream)
        apply_kernel(X, Mean, Rstd, W, Bias, Y).launch(grid=(rows, 1, 1), block=(T, 1, 1), stream=stream)

    return launch


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.run = make_layernorm(normalized_shape, eps)

    def forward(self, x):
        rows = x.numel() // x.shape[-1]
        mean = torch.empty(rows, device=x.device, dtype=torch.float32)
        rstd = torch.empty(rows, device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        self.run(x, mean, rstd, self.weight, self.bias, y, rows)
        return y
