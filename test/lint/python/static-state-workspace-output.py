# The look-alikes of static-state-workspace.py that can replay outputs: a
# fresh buffer kept in a global and returned as the entry's result, a buffer
# keyed on the input tensor itself, and a memoised function whose untyped
# argument is used as a tensor.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import functools
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


_outs = {}
_by_input = {}


# CHECK: :[[@LINE+1]]:1: warning: 'functools::lru_cache on 'summed'' memoises results between calls of the entry and can cache outputs [atrex-evasion-static-state]
@functools.lru_cache(maxsize=8)
def summed(x):
    return x.sum()


def custom_kernel(data):
    x = data[0]
    n = x.numel()
    out = torch.empty(n, device=x.device)
    # CHECK: :[[@LINE+1]]:5: warning: global '_outs' is written by the entry and keeps state between calls and can cache outputs [atrex-evasion-static-state]
    _outs[n] = out
    # CHECK: :[[@LINE+1]]:5: warning: global '_by_input' is written by the entry and keeps state between calls and can cache outputs [atrex-evasion-static-state]
    _by_input[x] = torch.zeros(1, device=x.device)
    total = summed(data[1])
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    res = _outs[n]
    return res, total
# CHECK: verdict: suspicious
