# A KernelBench file with a `__main__` self-check is a submission: the
# harness calls ModelNew.forward, and the `__main__` block's reference is not
# on that path. With --mode=program the block is the entry and its
# reference is delegation. Program glue (torch.allclose, torch.randn) stays
# delegation in a submission's entry.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s --check-prefix=SUB
# SUB-NOT: warning
# SUB: analysed as a submission
# SUB: verdict: adopted
# RUN: not atrex-lint --no-snippets --mode=program %s 2>&1 | FileCheck %s --check-prefix=PROG
# PROG: warning: call to 'torch::sigmoid' delegates compute to PyTorch/ATen
# PROG: verdict: fallback
# RUN: sed 's/return out$/return out if torch.allclose(out, torch.rand_like(out)) else out/' %s > %t.py
# RUN: not atrex-lint --no-snippets %t.py 2>&1 | FileCheck %s --check-prefix=GLUE
# GLUE-DAG: warning: call to 'torch::allclose' delegates compute to PyTorch/ATen
# GLUE-DAG: warning: call to 'torch::rand_like' delegates compute to PyTorch/ATen
# GLUE: verdict: fallback
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_kernel(src, dst, count, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    v = tl.load(src + idx, mask=idx < count)
    tl.store(dst + idx, 1.0 / (1.0 + tl.exp(-v)), mask=idx < count)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        sigmoid_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), TILE=256)
        return out


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda")
    print(torch.allclose(ModelNew()(x), torch.sigmoid(x)))
