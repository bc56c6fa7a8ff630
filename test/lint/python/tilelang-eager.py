# TileLang's eager style: a `@tilelang.jit` function whose own body opens
# `T.Kernel` is the kernel; calling it from host code compiles and launches
# it. Comparisons and arithmetic on its tensor arguments inside are the
# DSL's. An `@autotune` factory's call tunes (runs) the kernel it builds.
# The program's PyTorch reference stays delegation.
# RUN: not atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
import torch
import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


@tilelang.jit
def masked_copy(src, dst, lo, hi, block=256):
    n = T.const("n")
    src: T.Tensor[(n,), T.float32]
    dst: T.Tensor[(n,), T.float32]
    with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
        for i in T.Parallel(block):
            idx = bx * block + i
            if idx < hi[0] and idx >= lo[0]:
                dst[idx] = src[idx] * 0.5


@autotune(configs=[{"block": 64}, {"block": 128}], warmup=1, rep=2)
@tilelang.jit(out_idx=[-1])
def tuned_neg(n, block=64):
    @T.prim_func
    def neg(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = -A[bx * block + i]

    return neg


def run(x):
    lo = torch.zeros(1, dtype=torch.int32, device=x.device)
    hi = torch.full((1,), x.numel(), dtype=torch.int32, device=x.device)
    out = torch.empty_like(x)
    masked_copy(x, out, lo, hi)
    return out


def tune(n):
    best = tuned_neg(n)
    print(best.get_kernel_source())


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda")
    y = run(x)
    tune(4096)
    # CHECK: tilelang-eager.py:[[@LINE+1]]:37: warning: call to 'at::operator*' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    torch.testing.assert_close(y, x * 0.5)
# CHECK-NOT: at::
# CHECK: kernel 'masked_copy' at {{.*}}tilelang-eager.py:14:5: launched
# CHECK: kernel 'tuned_neg.neg' at {{.*}}tilelang-eager.py:29:9: launched
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::operator*))
