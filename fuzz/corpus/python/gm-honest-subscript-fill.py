# GPU MODE: subscript assignments into Python lists and constant fills of a
# tensor are glue; the work is the own kernel.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: warning
# CHECK: :[[@LINE+18]]:5: note: call to 'at::Tensor::fill_' is host glue
# CHECK: verdict: adopted
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def custom_kernel(data):
    src, dst = data
    shape = list(src.shape)
    shape[0] = 1
    dst[-1:] = 0
    copy_kernel[(1,)](src, dst, src.numel(), BLOCK=1024)
    return dst
