# FlyDSL launchers built at run time (issue 19): a builder defines a
# @flyc.kernel and the @flyc.jit host that launches it and returns the host;
# the host is a node of its own that sees the kernel beside it. Each entry
# below reaches the launch a different way agents write it.
# RUN: atrex-lint --no-snippets --entry=InitBuilder.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=CachedBuilder.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=ContainerCache.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=LauncherVar.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=Compiled.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=TupleInit.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: atrex-lint --no-snippets --entry=TupleLocal.forward %s 2>&1 | FileCheck %s --check-prefix=OK
# RUN: not atrex-lint --no-snippets --entry=BuiltNeverCalled.forward %s 2>&1 | FileCheck %s --check-prefix=NOCALL
# RUN: not atrex-lint --no-snippets --entry=LauncherNoLaunch.forward %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
import functools

import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 256


def make_scale(alpha: float):
    @flyc.kernel
    def scale_kernel(X: fx.Tensor, Y: fx.Tensor):
        i = fx.block_idx.x * BLOCK + fx.thread_idx.x
        xb = fx.rocdl.make_buffer_tensor(X)
        yb = fx.rocdl.make_buffer_tensor(Y)
        yb[i] = xb[i] * alpha

    @flyc.jit
    def launch(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
        scale_kernel(X, Y).launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1))

    return launch


def make_scale_tuple(alpha: float):
    @flyc.kernel
    def scale2_kernel(X: fx.Tensor, Y: fx.Tensor):
        i = fx.block_idx.x * BLOCK + fx.thread_idx.x
        yb = fx.rocdl.make_buffer_tensor(Y)
        yb[i] = fx.rocdl.make_buffer_tensor(X)[i] * alpha

    @flyc.jit
    def launch2(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
        scale2_kernel(X, Y).launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1))

    return BLOCK, launch2


@functools.lru_cache(maxsize=None)
def cached_scale(alpha: float):
    return make_scale(alpha)


@flyc.kernel
def neg_kernel(X: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = -xb[i]


@flyc.jit
def neg_two_step(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    launcher = neg_kernel(X, Y)
    launcher.launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1))


@flyc.jit
def neg_no_launch(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    launcher = neg_kernel(X, Y)
    _ = launcher


class InitBuilder(nn.Module):
    def __init__(self):
        super().__init__()
        self._launch = make_scale(2.0)

    def forward(self, x):
        y = torch.empty_like(x)
        self._launch(x.view(-1), y.view(-1), x.numel())
        return y


class CachedBuilder(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        cached_scale(0.5)(x.view(-1), y.view(-1), x.numel())
        return y


class ContainerCache(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def forward(self, x):
        n = x.numel()
        if n not in self._cache:
            self._cache[n] = make_scale(3.0)
        y = torch.empty_like(x)
        self._cache[n](x.view(-1), y.view(-1), n)
        return y


class LauncherVar(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        neg_two_step(x.view(-1), y.view(-1), x.numel())
        return y


class Compiled(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        fn = flyc.compile(neg_two_step, x, y, x.numel())
        fn(x, y, x.numel())
        return y


class TupleInit(nn.Module):
    def __init__(self):
        super().__init__()
        self.block, self._launch = make_scale_tuple(2.0)

    def forward(self, x):
        y = torch.empty_like(x)
        self._launch(x.view(-1), y.view(-1), x.numel())
        return y


class TupleLocal(nn.Module):
    def forward(self, x):
        block, launch = make_scale_tuple(2.0)
        y = torch.empty_like(x)
        launch(x.view(-1), y.view(-1), x.numel())
        return y


class BuiltNeverCalled(nn.Module):
    def forward(self, x):
        make_scale(2.0)  # the launcher is built and dropped
        return torch.empty_like(x)


class LauncherNoLaunch(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        neg_no_launch(x.view(-1), y.view(-1), x.numel())
        return y

# (the file's other kernel is reported unlaunched under each entry)
# OK-NOT: delegates
# OK-NOT: error:
# OK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
# NOCALL: error: none of the 3 kernels defined is launched from the entry [atrex-no-kernel]
# NOCALL: verdict: no-kernel
# NOLAUNCH: error: none of the 3 kernels defined is launched from the entry [atrex-no-kernel]
# NOLAUNCH: verdict: no-kernel
