# The FlyDSL kernel does the bias add, the activation is left to torch on the host.
import torch
import torch.nn as nn
import torch.nn.functional as F

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def bias_kernel(X: fx.Tensor, Bias: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    i = fx.block_idx.x * 256 + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    bb = fx.rocdl.make_buffer_tensor(Bias)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = xb[i] + bb[i % n]


@flyc.jit
def add_bias(X: fx.Tensor, Bias: fx.Tensor, Y: fx.Tensor, total: fx.Int32, n: fx.Int32):
    bias_kernel(X, Bias, Y, n).launch(grid=(total // 256, 1, 1), block=(256, 1, 1))


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(n))

    def forward(self, x):
        y = torch.empty_like(x)
        add_bias(x.view(-1), self.bias, y.view(-1), x.numel(), x.shape[-1])
        return F.gelu(y)
