# torch2flydsl task style: a target function and its module builder, no ModelNew.
import torch

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import math as fmath

BLOCK = 256


def build_silu_and_mul_module(d: int):
    @flyc.kernel
    def silu_and_mul_kernel(X: fx.Tensor, Out: fx.Tensor):
        row = fx.block_idx.x
        tid = fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        ob = fx.rocdl.make_buffer_tensor(Out)
        for j in fx.range_constexpr(d // BLOCK):
            c = tid + j * BLOCK
            g = xb[row * 2 * d + c]
            u = xb[row * 2 * d + d + c]
            ob[row * d + c] = g / (1.0 + fmath.exp(-g)) * u

    @flyc.jit
    def launch_silu_and_mul(X: fx.Tensor, Out: fx.Tensor, rows: fx.Int32,
                            stream: fx.Stream = fx.Stream(None)):
        silu_and_mul_kernel(X, Out).launch(grid=(rows, 1, 1), block=(BLOCK, 1, 1), stream=stream)

    return launch_silu_and_mul


_MODULES = {}


def flydsl_silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    d = x.shape[-1] // 2
    if d not in _MODULES:
        _MODULES[d] = build_silu_and_mul_module(d)
    out = torch.empty(x.shape[:-1] + (d,), dtype=x.dtype, device=x.device)
    _MODULES[d](x.reshape(-1, 2 * d), out.reshape(-1, d), x.numel() // (2 * d))
    return out
