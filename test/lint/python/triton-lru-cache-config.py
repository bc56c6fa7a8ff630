# Memoised helpers that take and return no tensors (a device query, a
# launch configuration from ints and a dtype) keep no outputs: notes only.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: warning
# CHECK: :[[@LINE+9]]:1: note: 'functools::lru_cache on 'device_props'' memoises results between calls of the entry (its arguments hold no input data and no caller returns its result) [atrex-evasion-static-state]
# CHECK: :[[@LINE+17]]:1: note: 'functools::cache on 'launch_config'' memoises results between calls of the entry (its arguments hold no input data and no caller returns its result) [atrex-evasion-static-state]
# CHECK: verdict: adopted
from functools import lru_cache, cache
import torch
import triton
import triton.language as tl


@lru_cache(maxsize=1)
def device_props():
    try:
        p = torch.cuda.get_device_properties(torch.cuda.current_device())
        return p.multi_processor_count, p.L2_cache_size
    except Exception:
        return 108, 40 * 1024 * 1024


@cache
def launch_config(rows, cols, dtype: torch.dtype):
    sms, _ = device_props()
    return (min(rows, sms), 128 if dtype == torch.float32 else 256)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def custom_kernel(data):
    x = data
    grid, block = launch_config(x.shape[0], x.shape[1], x.dtype)
    out = torch.empty_like(x)
    copy_kernel[(grid,)](x, out, x.numel(), BLOCK=block)
    return out
