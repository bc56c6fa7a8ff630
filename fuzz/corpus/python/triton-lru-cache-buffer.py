# A memoised function without parameters that returns a tensor can hand the
# same output back on every call.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import functools
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


# CHECK: :[[@LINE+1]]:1: warning: 'functools::cache on 'result_buffer'' memoises results between calls of the entry and can cache outputs [atrex-evasion-static-state]
@functools.cache
def result_buffer():
    return torch.empty(4096, device="cuda")


def custom_kernel(data):
    out = result_buffer()
    copy_kernel[(4,)](data, out, 4096, BLOCK=1024)
    return out
# CHECK: verdict: suspicious
