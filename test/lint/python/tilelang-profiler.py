# TileLang's test idiom: `jit_fn.compile(...)` returns the compiled kernel
# (also passed on to a helper), `kernel.get_profiler()` a profiler whose
# `assert_allclose(ref)` runs the kernel and the reference (given by name,
# through `functools.partial` or as a lambda, with the kernel's tensors)
# and whose `do_bench()` (no function, `profiler.func`, the kernel) runs
# the kernel. `@T.macro` helpers are device code, neither kernels nor
# entries.
# RUN: not atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# A profiler that only benchmarks a reference launches nothing of its own.
# RUN: not atrex-lint --no-snippets --entry=bench_reference_only %s 2>&1 | FileCheck %s --check-prefix=REF
from functools import partial

import torch
import tilelang
import tilelang.language as T


@T.macro
def halve(buf, i):
    buf[i] = buf[i] * 0.5 + (buf[i] > 0)


@tilelang.jit(out_idx=[-1])
def halve_factory(n, block=128):
    @T.prim_func
    def halve_kernel(X: T.Tensor((n,), T.float32), Y: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                Y[bx * block + i] = X[bx * block + i]
                halve(Y, bx * block + i)

    return halve_kernel


@tilelang.jit
def add_eager(A, B, block=128):
    n = T.const("n")
    A: T.Tensor((n,), T.float32)
    B: T.Tensor((n,), T.float32)
    C = T.empty((n,), T.float32)
    with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
        for i in T.Parallel(block):
            C[bx * block + i] = A[bx * block + i] + B[bx * block + i]
    return C


def reference(x, scale):
    # CHECK: tilelang-profiler.py:[[@LINE+1]]:14: warning: call to 'at::operator*' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    return x * scale


def check(kernel):
    profiler = kernel.get_profiler()
    profiler.assert_allclose(partial(reference, scale=0.5), atol=1e-3)
    print(profiler.do_bench(profiler.func))


def main():
    check(halve_factory.compile(n=4096))
    adder = add_eager.compile(n=4096)
    profiler = adder.get_profiler()
    # CHECK: tilelang-profiler.py:[[@LINE+1]]:45: warning: call to 'at::operator+' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    profiler.assert_allclose(lambda a, b: a + b)
    print(profiler.do_bench())


def bench_reference_only():
    kernel = halve_factory(4096)
    profiler = kernel.get_profiler()
    return profiler.do_bench(reference)


if __name__ == "__main__":
    main()
# CHECK-NOT: halve'
# CHECK: kernel 'halve_factory.halve_kernel' at {{.*}}tilelang-profiler.py:26:9: launched
# CHECK: kernel 'add_eager' at {{.*}}tilelang-profiler.py:36:5: launched
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::operator*); fallback: PyTorch/ATen (at::operator+))
# REF: warning: kernel 'halve_factory.halve_kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
# REF: verdict: fallback
