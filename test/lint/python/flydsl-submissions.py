# FlyDSL (PyPI flydsl): `@flyc.kernel` functions are kernels, launched with
# `kernel(args).launch(grid=..., block=...)` from a `@flyc.jit` host function
# that `ModelNew.forward` calls; `fx.*` inside them is the DSL, not PyTorch.
# A kernel defined but never launched, and a torch op beside a launched
# kernel (a decoy copy of the result), are fallbacks naming the torch op.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=Decoy.forward %s 2>&1 | FileCheck %s --check-prefix=DECOY
# RUN: not atrex-lint --no-snippets --entry=NoLaunch.forward %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx

THREADS = 128


@flyc.kernel
def scale_kernel(X: fx.Tensor, Y: fx.Tensor, alpha: fx.Float32):
    i = fx.block_idx.x * THREADS + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = xb[i] * alpha


@flyc.jit
def launch_scale(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32, alpha: fx.Float32,
                 stream: fx.Stream = fx.Stream(None)):
    blocks = (n + THREADS - 1) // THREADS
    scale_kernel(X, Y, alpha).launch(grid=(blocks, 1, 1), block=(THREADS, 1, 1),
                                     stream=stream)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        launch_scale(x.view(-1), y.view(-1), x.numel(), 2.0)
        return y


class Decoy(nn.Module):
    def forward(self, a, b):
        # DECOY: :[[@LINE+1]]:16: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        prod = torch.matmul(a, b)
        out = torch.empty_like(prod)
        launch_scale(prod.view(-1), out.view(-1), prod.numel(), 1.0)
        return out


class NoLaunch(nn.Module):
    def forward(self, a, b):
        # NOLAUNCH: :[[@LINE+1]]:16: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return torch.matmul(a, b)

# CHECK-NOT: warning:
# CHECK: verdict: adopted
# DECOY: verdict: fallback (fallback: PyTorch/ATen (torch::matmul))
# NOLAUNCH: verdict: fallback (fallback: PyTorch/ATen (torch::matmul); no-kernel: none of the 1 kernel defined is launched from the entry)
