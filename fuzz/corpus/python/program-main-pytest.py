# `pytest.main()` in `__main__` runs the file's tests: a test's PyTorch
# reference is delegation. Without a test runner the tests are not run.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: sed 's/pytest.main(\[__file__\])/print(negate(torch.randn(8, device="cuda")))/' %s > %t.py
# RUN: atrex-lint --no-snippets %t.py 2>&1 | FileCheck %s --check-prefix=NORUNNER
# NORUNNER-NOT: warning
# NORUNNER: verdict: adopted
import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def negate_kernel(src, dst, count, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    tl.store(dst + idx, -tl.load(src + idx, mask=idx < count), mask=idx < count)


def negate(src):
    dst = torch.empty_like(src)
    negate_kernel[(triton.cdiv(src.numel(), 128),)](src, dst, src.numel(), TILE=128)
    return dst


@pytest.mark.parametrize("count", [7, 1000])
def test_negate(count):
    src = torch.randn(count, device="cuda")
    # CHECK: program-main-pytest.py:[[@LINE+2]]:45: warning: call to 'torch::neg' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    # CHECK-NEXT: note: reached from entry '__main__' -> 'test_negate'
    torch.testing.assert_close(negate(src), torch.neg(src))


if __name__ == "__main__":
    pytest.main([__file__])
# CHECK: verdict: fallback (fallback: PyTorch/ATen (torch::neg))
