"""Sandbox test: the kernel does not trace (an fx function that does not exist)."""
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def bad_kernel(X: fx.Tensor, Y: fx.Tensor):
    xb = fx.rocdl.make_buffer_tensor(X)
    fx.no_such_operation(xb, Y)


@flyc.jit
def launch_bad(X: fx.Tensor, Y: fx.Tensor, stream: fx.Stream = fx.Stream(None)):
    bad_kernel(X, Y).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        launch_bad(x, y)
        return y


def get_inputs():
    return [torch.randn(64)]
