# A Triton submission whose forward hands the GEMM to torch.matmul (cuBLAS)
# and runs only an epilogue of its own (a Triton copy kernel into the bf16
# output). Expected: fallback, naming the cuBLAS kernels.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _copy_out(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, w):
        acc = torch.matmul(x, w.t())
        out = torch.empty_like(acc)
        n = acc.numel()
        _copy_out[(triton.cdiv(n, 1024),)](out, acc, n, BLOCK=1024)
        return out
