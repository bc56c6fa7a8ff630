# CuTe DSL: `@cute.kernel` functions are kernels, `kernel(args).launch(...)`
# in a `@cute.jit` host function launches them, `cute.compile(host_fn, ...)`
# traces the host function, and a cache of compiled functions keyed on the
# dtype keeps compiled code, not outputs (KernelBench's own CuTe example).
# A cache of outputs stays an error.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=forward_cached %s 2>&1 | FileCheck %s --check-prefix=CACHED
import torch
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack


@cute.kernel
def add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    gC[tidx] = gA[tidx] + gB[tidx]


@cute.jit
def add_host(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    # CHECK-NOT: not launched
    add_kernel(mA, mB, mC).launch(grid=(1, 1, 1), block=(256, 1, 1))


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.compiled = {}
        self.outputs = {}

    def forward(self, A, B):
        C = torch.empty_like(A)
        mA, mB, mC = from_dlpack(A), from_dlpack(B), from_dlpack(C)
        key = (A.dtype,)
        compiled = self.compiled.get(key)
        if compiled is None:
            compiled = cute.compile(add_host, mA, mB, mC)
            # CHECK: :[[@LINE+1]]:13: note: attribute 'self.compiled' is written by the entry and keeps state between calls [atrex-evasion-static-state]
            self.compiled[key] = compiled
        compiled(mA, mB, mC)
        return C

    def forward_cached(self, A, B):
        C = self.forward(A, B)
        # CACHED: :[[@LINE+1]]:9: warning: attribute 'self.outputs' is written by the entry and keeps state between calls and can cache outputs [atrex-evasion-static-state]
        self.outputs[A.data_ptr()] = C
        return C
# CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
# CACHED: verdict: suspicious
