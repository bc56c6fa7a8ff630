# A tensor set to None on another path stays a tensor: its PyTorch
# reduction on the tensor path is delegation (a partial-sum buffer finished
# with .sum()).
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: sed 's/partial.sum(dim=0)/partial/' %s > %t.py
# RUN: atrex-lint --no-snippets %t.py 2>&1 | FileCheck %s --check-prefix=NOSUM
# NOSUM-NOT: warning
# NOSUM: verdict: adopted
import torch
import triton
import triton.language as tl


@triton.jit
def col_partial_kernel(src, part, rows, cols, TILE: tl.constexpr):
    pid = tl.program_id(0)
    c = tl.arange(0, TILE)
    tl.store(part + pid * cols + c, tl.load(src + pid * cols + c, mask=c < cols), mask=c < cols)


def col_sum(src, with_weight):
    rows, cols = src.shape
    if with_weight:
        partial = torch.empty((rows, cols), device=src.device, dtype=torch.float32)
    else:
        partial = None
    col_partial_kernel[(rows,)](src, partial, rows, cols, TILE=triton.next_power_of_2(cols))
    if with_weight:
        # CHECK: triton-none-branch.py:[[@LINE+1]]:16: warning: call to 'at::Tensor::sum' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return partial.sum(dim=0)
    return None
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::Tensor::sum))
