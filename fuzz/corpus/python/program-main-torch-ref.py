# A `__main__` that checks the own kernel against PyTorch math computes a
# reference with PyTorch: a program's reference path is delegation, named by
# its ops. The comparison itself (torch.allclose) is glue.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: torch::allclose
# CHECK-NOT: torch::randn
import torch
import triton
import triton.language as tl


@triton.jit
def pair_sum_kernel(a, b, c, count, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    keep = idx < count
    tl.store(c + idx, tl.load(a + idx, mask=keep) + tl.load(b + idx, mask=keep), mask=keep)


def pair_sum(a, b):
    c = torch.empty_like(a)
    pair_sum_kernel[(triton.cdiv(c.numel(), 256),)](a, b, c, c.numel(), TILE=256)
    return c


if __name__ == "__main__":
    a = torch.randn(2048, device="cuda")
    b = torch.rand(2048, device="cuda")
    got = pair_sum(a, b)
    # CHECK: program-main-torch-ref.py:[[@LINE+1]]:33: warning: call to 'at::operator+' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    print(torch.allclose(got, a + b))
    m = a.view(32, 64)
    # CHECK: program-main-torch-ref.py:[[@LINE+1]]:13: warning: call to 'torch::softmax' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    probs = torch.softmax(m, dim=-1)
    # CHECK: program-main-torch-ref.py:[[@LINE+1]]:12: warning: call to 'torch::matmul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    gram = torch.matmul(m, m.t())
    # CHECK: program-main-torch-ref.py:[[@LINE+1]]:32: warning: call to 'at::Tensor::sum' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    torch.testing.assert_close(probs.sum(-1), torch.ones(32, device="cuda"))
# CHECK: program-main-torch-ref.py: note: analysed as a program
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::operator+); fallback: PyTorch/ATen (torch::softmax); fallback: PyTorch/ATen (torch::matmul); fallback: PyTorch/ATen (at::Tensor::sum))
