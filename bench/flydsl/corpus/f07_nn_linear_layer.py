# The Linear layer set up in __init__ is called in forward; FlyDSL only adds the residual.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def residual_kernel(X: fx.Tensor, R: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * 256 + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    rb = fx.rocdl.make_buffer_tensor(R)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = xb[i] + rb[i]


@flyc.jit
def residual(X: fx.Tensor, R: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    residual_kernel(X, R, Y).launch(grid=(n // 256, 1, 1), block=(256, 1, 1))


class ModelNew(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        h = self.proj(x)
        y = torch.empty_like(h)
        residual(h.view(-1), x.view(-1), y.view(-1), h.numel())
        return y
