# Names imported from flydsl directly; scale-and-shift elementwise.
import torch
from torch import nn
from flydsl.compiler import kernel, jit
from flydsl import expr as fx

TPB = 128


@kernel
def affine_kernel(X: fx.Tensor, Y: fx.Tensor, scale: fx.Float32, shift: fx.Float32):
    i = fx.block_idx.x * TPB + fx.thread_idx.x
    x = fx.rocdl.make_buffer_tensor(X)
    y = fx.rocdl.make_buffer_tensor(Y)
    y[i] = x[i] * scale + shift


@jit
def affine(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32, scale: fx.Float32, shift: fx.Float32):
    affine_kernel(X, Y, scale, shift).launch(grid=((n + TPB - 1) // TPB, 1, 1), block=(TPB, 1, 1))


class ModelNew(nn.Module):
    def __init__(self, scale=2.0, shift=0.5):
        super().__init__()
        self.scale, self.shift = scale, shift

    def forward(self, x):
        y = torch.empty_like(x)
        affine(x.flatten(), y.flatten(), x.numel(), self.scale, self.shift)
        return y
