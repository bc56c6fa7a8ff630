# Kernels defined inside a function and launched through its return value:
# `build()[grid](...)`, a local bound to it, a cache in a module global
# (`global _K; if _K is None: _K = build(); return _K`), a module-level
# binding (`_M = build()`). They are kernels of their own (`build.k`), their
# bodies device code.
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl

_CACHED = None


def _build_double():
    import triton.language as tl

    @triton.jit
    def double_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=keep) * 2, mask=keep)

    return double_kernel


def _build_negate():
    @triton.autotune(configs=[triton.Config({"BLOCK": 256})], key=["n"])
    @triton.jit
    def negate_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = offs < n
        tl.store(dst + offs, -tl.load(src + offs, mask=keep), mask=keep)

    return negate_kernel


def _cached_double():
    global _CACHED
    if _CACHED is None:
        _CACHED = _build_double()
    return _CACHED


_NEGATE = _build_negate()


def double(x: torch.Tensor):
    out = torch.empty_like(x)
    n = x.numel()
    _cached_double()[(triton.cdiv(n, 512),)](x, out, n, BLOCK=512)
    return out


def double_direct(x: torch.Tensor):
    out = torch.empty_like(x)
    kernel = _build_double()
    kernel[(1,)](x, out, x.numel(), BLOCK=1024)
    return out


def negate(x: torch.Tensor):
    out = torch.empty_like(x)
    _NEGATE[(4,)](x, out, x.numel())
    return out
# CHECK-NOT: delegates
# CHECK-NOT: never launched
# CHECK: kernel '_build_double.double_kernel' at {{.*}}triton-builder-return.py:18:9: launched
# CHECK: kernel '_build_negate.negate_kernel' at {{.*}}triton-builder-return.py:29:9: launched
# CHECK: verdict: adopted
