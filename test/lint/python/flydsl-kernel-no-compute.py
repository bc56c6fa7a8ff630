# atrex-kernel-no-compute (issue 19): a launched FlyDSL kernel whose body
# only loads, copies and stores is reported as a note; beside a torch op (the
# decoy: torch computes, the kernel copies the result) the verdict is fallback
# naming the op. Kernels that compute (arithmetic on loaded values, math,
# MMA, a helper that computes, comparisons of loaded values) are not reported; an honest copy-only kernel
# (a transpose) stays adopted.
# RUN: not atrex-lint --no-snippets --entry=Decoy.forward %s 2>&1 | FileCheck %s --check-prefix=DECOY
# RUN: atrex-lint --no-snippets --entry=Transpose.forward %s 2>&1 | FileCheck %s --check-prefix=COPY
# RUN: atrex-lint --no-snippets --entry=Computes.forward %s 2>&1 | FileCheck %s --check-prefix=COMPUTE
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl.expr import math as fmath

B = 256


# DECOY: :[[@LINE+2]]:5: note: kernel 'copy_kernel' launched from the entry only moves data (2 load/copy/store operations; no arithmetic, matrix or math operation on what it loads): whatever the operator computes is computed elsewhere [atrex-kernel-no-compute]
@flyc.kernel
def copy_kernel(X: fx.Tensor, Y: fx.Tensor):
    bid = fx.block_idx.x
    tid = fx.thread_idx.x
    xt = fx.logical_divide(fx.slice(fx.logical_divide(fx.rocdl.make_buffer_tensor(X), fx.make_layout(B, 1)), (None, bid)), fx.make_layout(1, 1))
    yt = fx.logical_divide(fx.slice(fx.logical_divide(fx.rocdl.make_buffer_tensor(Y), fx.make_layout(B, 1)), (None, bid)), fx.make_layout(1, 1))
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32)
    r = fx.make_rmem_tensor(1, fx.Float32)
    fx.copy_atom_call(atom, fx.slice(xt, (None, tid)), r)
    fx.copy_atom_call(atom, r, fx.slice(yt, (None, tid)))


# COPY: :[[@LINE+2]]:5: note: kernel 'transpose_kernel' launched from the entry only moves data (2 load/copy/store operations{{.*}}[atrex-kernel-no-compute]
@flyc.kernel
def transpose_kernel(X: fx.Tensor, Y: fx.Tensor, rows: fx.Int32, cols: fx.Int32):
    r = fx.block_idx.y * 16 + fx.thread_idx.y
    c = fx.block_idx.x * 16 + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[c * rows + r] = xb[r * cols + c]


def _silu(v):
    return v / (1.0 + fmath.exp(-v))


@flyc.kernel
def add_kernel(A: fx.Tensor, Bt: fx.Tensor, C: fx.Tensor):
    i = fx.block_idx.x * B + fx.thread_idx.x
    a, b, c = fx.rocdl.make_buffer_tensor(A), fx.rocdl.make_buffer_tensor(Bt), fx.rocdl.make_buffer_tensor(C)
    c[i] = a[i] + b[i]


@flyc.kernel
def silu_kernel(X: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * B + fx.thread_idx.x
    xb, yb = fx.rocdl.make_buffer_tensor(X), fx.rocdl.make_buffer_tensor(Y)
    v = xb[i]
    yb[i] = _silu(v)


@flyc.kernel
def frag_add_kernel(A: fx.Tensor, Bt: fx.Tensor, C: fx.Tensor):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    ra = fx.make_rmem_tensor(4, fx.Float32)
    rb = fx.make_rmem_tensor(4, fx.Float32)
    fx.copy(atom, A, ra)
    fx.copy(atom, Bt, rb)
    ra.store(ra.load() + rb.load())
    fx.copy(atom, ra, C)


@flyc.kernel
def rowmax_kernel(X: fx.Tensor, Y: fx.Tensor):
    row = fx.block_idx.x
    xb, yb = fx.rocdl.make_buffer_tensor(X), fx.rocdl.make_buffer_tensor(Y)
    best = xb[row * 64]
    for j in fx.range_constexpr(1, 64):
        v = xb[row * 64 + j]
        best = v if v > best else best
    yb[row] = best


@flyc.kernel
def mma_kernel(A: fx.Tensor, Bt: fx.Tensor, C: fx.Tensor):
    mma = fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 4, fx.Float32))
    fx.gemm(mma, C, A, Bt, C)


@flyc.jit
def run_copy(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    copy_kernel(X, Y).launch(grid=(n // B, 1, 1), block=(B, 1, 1))


@flyc.jit
def run_transpose(X: fx.Tensor, Y: fx.Tensor, rows: fx.Int32, cols: fx.Int32):
    transpose_kernel(X, Y, rows, cols).launch(grid=(cols // 16, rows // 16, 1), block=(16, 16, 1))


@flyc.jit
def run_all(A: fx.Tensor, Bt: fx.Tensor, C: fx.Tensor, n: fx.Int32):
    add_kernel(A, Bt, C).launch(grid=(n // B, 1, 1), block=(B, 1, 1))
    silu_kernel(A, C).launch(grid=(n // B, 1, 1), block=(B, 1, 1))
    frag_add_kernel(A, Bt, C).launch(grid=(n // B, 1, 1), block=(B, 1, 1))
    mma_kernel(A, Bt, C).launch(grid=(1, 1, 1), block=(256, 1, 1))
    rowmax_kernel(A, C).launch(grid=(n // 64, 1, 1), block=(1, 1, 1))


class Decoy(nn.Module):
    def forward(self, a, b):
        # DECOY: :[[@LINE+1]]:15: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        tmp = torch.matmul(a, b)
        out = torch.empty_like(tmp)
        run_copy(tmp.view(-1), out.view(-1), tmp.numel())
        return out


class Transpose(nn.Module):
    def forward(self, x):
        y = torch.empty((x.shape[1], x.shape[0]), dtype=x.dtype, device=x.device)
        run_transpose(x, y, x.shape[0], x.shape[1])
        return y


class Computes(nn.Module):
    def forward(self, a, b):
        c = torch.empty_like(a)
        run_all(a, b, c, a.numel())
        return c

# DECOY: verdict: fallback (fallback: PyTorch/ATen (torch::matmul))
# COPY: verdict: adopted
# COMPUTE-NOT: atrex-kernel-no-compute
# COMPUTE: verdict: adopted (adopted: 5 own kernels launched from the entry, no delegation)
