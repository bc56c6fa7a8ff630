"""Own test GEMM: tiled GEMM C = A @ B^T with MFMA atoms, KernelBench-style (ModelNew).

Grid over (M/BM, N/BN) output tiles, K loop unrolled at trace time, fp32 MFMA 16x16x4,
2x2 waves per workgroup.
"""
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx

BM, BN, BK = 32, 32, 4


def make_gemm(K: int):
    @flyc.kernel
    def gemm_kernel(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor):
        tid = fx.thread_idx.x
        bm = fx.block_idx.x
        bn = fx.block_idx.y
        A = fx.rocdl.make_buffer_tensor(A)
        B = fx.rocdl.make_buffer_tensor(B)
        C = fx.rocdl.make_buffer_tensor(C)
        tA = fx.flat_divide(A, (BM, BK))  # (BM, BK, M/BM, K/BK)
        tB = fx.flat_divide(B, (BN, BK))  # (BN, BK, N/BN, K/BK)
        gC = fx.flat_divide(C, (BM, BN))[None, None, bm, bn]

        mma_atom = fx.make_mma_atom(fx.rocdl.MFMA(16, 16, 4, fx.Float32))
        tiled_mma = fx.make_tiled_mma(mma_atom, fx.make_layout((2, 2, 1), (1, 2, 0)))
        thr_mma = tiled_mma.thr_slice(tid)
        copy_atom = fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32)
        cpA = fx.make_tiled_copy_A(copy_atom, tiled_mma).get_slice(tid)
        cpB = fx.make_tiled_copy_B(copy_atom, tiled_mma).get_slice(tid)
        cpC = fx.make_tiled_copy_C(copy_atom, tiled_mma).get_slice(tid)

        gA0 = tA[None, None, bm, 0]
        gB0 = tB[None, None, bn, 0]
        fA = thr_mma.make_fragment_A(gA0)
        fB = thr_mma.make_fragment_B(gB0)
        fC = thr_mma.make_fragment_C(gC)
        fC.fill(0)
        for kt in fx.range_constexpr(K // BK):
            gA = tA[None, None, bm, kt]
            gB = tB[None, None, bn, kt]
            fx.copy(copy_atom, cpA.partition_S(gA), cpA.retile(fA), pred=None)
            fx.copy(copy_atom, cpB.partition_S(gB), cpB.retile(fB), pred=None)
            fx.gemm(mma_atom, fC, fA, fB, fC)
        fx.copy(copy_atom, cpC.retile(fC), cpC.partition_S(gC), pred=None)

    @flyc.jit
    def launch(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, M: fx.Int32, N: fx.Int32,
               stream: fx.Stream = fx.Stream(None)):
        gemm_kernel(A, B, C).launch(grid=(M // BM, N // BN, 1), block=(256, 1, 1), stream=stream)

    return launch


class ModelNew(nn.Module):
    def __init__(self, K: int):
        super().__init__()
        self._launch = make_gemm(K)

    def forward(self, a, b):  # a: (M, K), b: (N, K)
        c = torch.empty(a.shape[0], b.shape[0], dtype=a.dtype)
        self._launch(a, b, c, a.shape[0], b.shape[0])
        return c


def get_init_inputs():
    return [64]


def get_inputs():
    return [torch.randn(64, 64), torch.randn(64, 64)]
