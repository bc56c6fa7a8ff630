# Row softmax: max and sum by wave shuffles, exp2 with a log2(e) scale.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import arith, range_constexpr
from flydsl.expr import math as fmath

WAVE = 64
LOG2E = 1.4426950408889634


def wave_max(v):
    for s in range_constexpr(6):
        v = arith.maximumf(v, v.shuffle_xor(WAVE >> (s + 1), WAVE))
    return v


def wave_sum(v):
    for s in range_constexpr(6):
        v = v + v.shuffle_xor(WAVE >> (s + 1), WAVE)
    return v


def build(n_cols: int):
    @flyc.kernel(known_block_size=[WAVE, 1, 1])
    def softmax_kernel(X: fx.Tensor, Y: fx.Tensor):
        row = fx.block_idx.x
        lane = fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        yb = fx.rocdl.make_buffer_tensor(Y)
        m = fx.Float32(-3.0e38)
        for j in range_constexpr(n_cols // WAVE):
            m = arith.maximumf(m, xb[row * n_cols + lane + j * WAVE])
        m = wave_max(m)
        s = fx.Float32(0.0)
        for j in range_constexpr(n_cols // WAVE):
            s = s + fmath.exp2((xb[row * n_cols + lane + j * WAVE] - m) * LOG2E)
        s = wave_sum(s)
        for j in range_constexpr(n_cols // WAVE):
            i = row * n_cols + lane + j * WAVE
            yb[i] = fmath.exp2((xb[i] - m) * LOG2E) / s

    @flyc.jit
    def launch(X: fx.Tensor, Y: fx.Tensor, rows: fx.Int32, stream: fx.Stream = fx.Stream(None)):
        softmax_kernel(X, Y).launch(grid=(rows, 1, 1), block=(WAVE, 1, 1), stream=stream)

    return launch


class ModelNew(nn.Module):
    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim
        self._cache = {}

    def forward(self, x):
        n = x.shape[-1]
        if n not in self._cache:
            self._cache[n] = build(n)
        y = torch.empty_like(x)
        self._cache[n](x.reshape(-1, n), y.reshape(-1, n), x.numel() // n)
        return y
