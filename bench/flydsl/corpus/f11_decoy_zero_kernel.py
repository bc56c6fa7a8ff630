# Decoy: the output is filled by a FlyDSL kernel, then overwritten by torch.mm's result.
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def init_kernel(Y: fx.Tensor):
    i = fx.block_idx.x * 256 + fx.thread_idx.x
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = fx.Float32(0.0)


@flyc.jit
def init(Y: fx.Tensor, n: fx.Int32):
    init_kernel(Y).launch(grid=(n // 256, 1, 1), block=(256, 1, 1))


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
        init(out.view(-1), out.numel())
        torch.mm(a, b, out=out)
        return out
