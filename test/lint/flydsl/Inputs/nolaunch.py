"""A FlyDSL kernel is defined, but forward() computes with torch.mm and launches nothing."""
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def unused_kernel(X: fx.Tensor, Y: fx.Tensor):
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32)
    r = fx.make_rmem_tensor(1, fx.Float32)
    fx.copy_atom_call(atom, fx.slice(fx.logical_divide(xb, fx.make_layout(1, 1)), (None, fx.thread_idx.x)), r)
    fx.copy_atom_call(atom, r, fx.slice(fx.logical_divide(yb, fx.make_layout(1, 1)), (None, fx.thread_idx.x)))


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.mm(a, b)


def get_inputs():
    return [torch.randn(64, 64), torch.randn(64, 64)]
