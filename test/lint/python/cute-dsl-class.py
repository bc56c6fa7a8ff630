# CuTe DSL kernels as methods: a class whose `@cute.jit __call__` launches
# its `@cute.kernel` method with `self.kernel(...).launch(...)` (the
# class's `__call__` is the entry when the file has no module-level
# function). Operators on `cute.Tensor` and `cutlass.Int32` parameters are
# the DSL's, not PyTorch's.
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# A class that only calls its kernel method (no `.launch`) launches nothing.
# RUN: not atrex-lint --no-snippets --entry=Unlaunched.__call__ %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
from typing import Optional

import cutlass
import cutlass.cute as cute


class ScaleRows:
    def __init__(self, rows: int):
        self.rows = rows

    @cute.jit
    def __call__(self, src: cute.Tensor, dst: cute.Tensor,
                 bias: Optional[cute.Tensor] = None, n: cutlass.Int32 = 0):
        blocks = (n + self.rows - 1) // self.rows
        first = (src.iterator + n).align(16)
        self.kernel(src, dst, n).launch(grid=(blocks, 1, 1),
                                        block=(self.rows, 1, 1))

    @cute.kernel
    def kernel(self, src: cute.Tensor, dst: cute.Tensor, n: cutlass.Int32):
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = src[tidx] * 2


class Unlaunched:
    @cute.jit
    def __call__(self, src: cute.Tensor, dst: cute.Tensor):
        self.kernel(src, dst)

    @cute.kernel
    def kernel(self, src: cute.Tensor, dst: cute.Tensor):
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = src[tidx]
# CHECK-NOT: at::
# CHECK: kernel 'ScaleRows.kernel' at {{.*}}cute-dsl-class.py:28:9: launched
# CHECK: kernel 'Unlaunched.kernel' at {{.*}}cute-dsl-class.py:39:9: not launched
# CHECK: entry 'ScaleRows.__call__'
# CHECK: verdict: adopted
# NOLAUNCH: warning: kernel 'Unlaunched.kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
# NOLAUNCH: verdict: no-kernel
