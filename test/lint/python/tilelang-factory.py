# TileLang: a `@tilelang.jit` function that builds a `@T.prim_func` (whose
# body opens `T.Kernel`) and returns it is a factory: its call returns the
# compiled kernel, whose call launches it (`k = factory(n); k(x, y)`,
# `factory(n)(x, y)`); `tilelang.compile(prim_func)` compiles one too. The
# prim_func's body is device code: arithmetic and comparisons on its
# buffers are TileLang's, not PyTorch's; so are module-level helpers the
# kernels call (`T.*` on untyped values).
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# A factory called but its kernel never called compiles only.
# RUN: not atrex-lint --no-snippets --entry=compile_only %s 2>&1 | FileCheck %s --check-prefix=COMPILE
import torch
import tilelang
import tilelang.language as T


def clamp_bits(v):
    bits = T.reinterpret(v, T.uint32)
    return T.if_then_else(v < 0, ~bits, bits | 0x80000000)


@tilelang.jit(out_idx=[-1])
def scale_factory(n, block=128, dtype=T.float32):
    @T.prim_func
    def scale(X: T.Tensor((n,), dtype), Y: T.Tensor((n,), dtype)):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < n:
                    Y[bx * block + i] = X[bx * block + i] * 2 + clamp_bits(X[i])

    return scale


def make_shift(n):
    @T.prim_func
    def shift(X: T.Tensor((n,), T.float32), Y: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(n):
                Y[i] = X[i] + 1

    return shift


def scale(x: torch.Tensor):
    kernel = scale_factory(x.numel())
    return kernel(x)


def scale_inline(x: torch.Tensor):
    return scale_factory(x.numel(), block=256)(x)


def shift(x: torch.Tensor):
    y = torch.empty_like(x)
    compiled = tilelang.compile(make_shift(x.numel()), out_idx=None)
    compiled(x, y)
    return y


def compile_only(x: torch.Tensor):
    return scale_factory(x.numel())
# CHECK-NOT: at::
# CHECK: kernel 'scale_factory.scale' at {{.*}}tilelang-factory.py:24:9: launched
# CHECK: kernel 'make_shift.shift' at {{.*}}tilelang-factory.py:35:9: launched
# CHECK: verdict: adopted
# COMPILE: warning: kernel 'scale_factory.scale' is defined but never launched from the entry [atrex-kernel-unlaunched]
# COMPILE: verdict: no-kernel
