# A builder's kernel that is only called (not launched through [grid]), or
# a builder that returns something else, launches nothing.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl


def _build():
    @triton.jit
    def fill_kernel(dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offs, 1.0, mask=offs < n)

    return fill_kernel


def _config():
    def helper():
        return 128

    return helper


def fill(x: torch.Tensor):
    k = _build()
    k(x, x.numel(), BLOCK=128)
    _config()[(1,)](x)
    return x
# CHECK: warning: kernel '_build.fill_kernel' is defined but never launched from the entry [atrex-kernel-unlaunched]
# CHECK: verdict: no-kernel
