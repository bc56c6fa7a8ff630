# A CuTe DSL kernel class defined inside a `@functools.cache` compile
# function, compiled with `cute.compile(instance, ...)`: the instance's
# `@cute.jit __call__` is traced and launches the `@cute.kernel` method
# (compiled code is cached, not outputs: a note). The same class never
# compiled launches nothing.
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=build_only %s 2>&1 | FileCheck %s --check-prefix=BUILD
import functools

import torch


@functools.cache
def _compile_copy(width: int):
    import cutlass
    import cutlass.cute as cute

    class CopyRows:
        @cute.jit
        def __call__(self, src: cute.Tensor, dst: cute.Tensor):
            self.kernel(src, dst).launch(grid=(1, 1, 1), block=(width, 1, 1))

        @cute.kernel
        def kernel(self, src: cute.Tensor, dst: cute.Tensor):
            tidx, _, _ = cute.arch.thread_idx()
            dst[tidx] = src[tidx]

    launcher = CopyRows()
    return cute.compile(launcher, src=None, dst=None)


def copy_rows(x: torch.Tensor):
    out = torch.empty_like(x)
    compiled = _compile_copy(x.shape[-1])
    compiled(x, out)
    return out


def build_only(x: torch.Tensor):
    import cutlass.cute as cute

    class Idle:
        @cute.kernel
        def kernel(self, src: cute.Tensor):
            pass

    return Idle()
# CHECK: note: 'functools::cache on '_compile_copy'' memoises results between calls of the entry (its arguments hold no input data and no caller returns its result) [atrex-evasion-static-state]
# CHECK-NOT: delegates
# CHECK: kernel '_compile_copy.CopyRows.kernel' at {{.*}}cute-dsl-nested.py:24:13: launched
# CHECK: verdict: adopted
# BUILD: warning: kernel 'build_only.Idle.kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
# BUILD: verdict: no-kernel
