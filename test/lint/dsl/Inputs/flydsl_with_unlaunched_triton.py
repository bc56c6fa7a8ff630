# A FlyDSL submission that also defines a Triton kernel it never launches.
import torch
import torch.nn as nn
import triton
import triton.language as tl

import flydsl.compiler as flyc
import flydsl.expr as fx


@triton.jit
def unused_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


@flyc.kernel
def add_kernel(X: fx.Tensor, Y: fx.Tensor, O: fx.Tensor):
    tid = fx.block_idx.x * 256 + fx.thread_idx.x
    O[tid] = X[tid] + Y[tid]


@flyc.jit
def launch_add(X: fx.Tensor, Y: fx.Tensor, O: fx.Tensor, n: fx.Int32,
               stream: fx.Stream = fx.Stream(None)):
    add_kernel(X, Y, O).launch(grid=((n + 255) // 256, 1, 1), block=(256, 1, 1), stream=stream)


class ModelNew(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        launch_add(x, y, out, x.numel())
        return out
