# A `__main__` that calls a vendor library (here for its reference) delegates.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl
import xformers.ops as xops


@triton.jit
def copy_rows_kernel(src, dst, width, TILE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, TILE)
    keep = cols < width
    tl.store(dst + row * width + cols, tl.load(src + row * width + cols, mask=keep), mask=keep)


def copy_rows(src):
    dst = torch.empty_like(src)
    copy_rows_kernel[(src.shape[0],)](src, dst, src.shape[1], TILE=128)
    return dst


if __name__ == "__main__":
    q = torch.randn(1, 64, 4, 32, device="cuda", dtype=torch.float16)
    mine = copy_rows(q.view(-1, 32))
    # CHECK: program-main-vendor.py:[[@LINE+1]]:11: warning: call to 'xformers::ops::memory_efficient_attention' delegates compute to vendor library (Python) [atrex-delegation-vendor]
    ref = xops.memory_efficient_attention(q, q, q)
    print(mine.shape, ref.shape)
# CHECK: verdict: fallback (fallback: vendor library (Python) (xformers::ops::memory_efficient_attention))
