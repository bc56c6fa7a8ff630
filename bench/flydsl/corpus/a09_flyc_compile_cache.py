# Ahead-of-time flyc.compile of the launcher per shape, the compiled callable cached.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 256


@flyc.kernel
def mul_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    ab = fx.rocdl.make_buffer_tensor(A)
    bb = fx.rocdl.make_buffer_tensor(B)
    cb = fx.rocdl.make_buffer_tensor(C)
    cb[i] = ab[i] * bb[i]


@flyc.jit
def mul_launch(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, n: fx.Int32,
               stream: fx.Stream = fx.Stream(None)):
    mul_kernel(A, B, C).launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1), stream=stream)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.compiled = {}

    def forward(self, a, b):
        c = torch.empty_like(a)
        key = (a.shape, a.dtype)
        if key not in self.compiled:
            self.compiled[key] = flyc.compile(mul_launch, a, b, c, a.numel())
        self.compiled[key](a, b, c, a.numel())
        return c
