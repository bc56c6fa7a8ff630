# Honest state that looks like a cache: scratch semaphores memoised on the
# stream and device, an integer threshold memoised on an untyped argument used
# only as a number, and a constant mask kept per device. None holds input data
# or hands an output back: notes, and the verdict stays adopted (regression:
# FlyDSL split-K GEMM and MoE-sorting submissions were called suspicious).
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import functools
import torch
import triton
import triton.language as tl


@triton.jit
def splitk_kernel(a_ptr, c_ptr, sem_ptr, mask_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    keep = tl.load(mask_ptr)
    tl.atomic_add(sem_ptr, 1)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=m) * 2.0 * keep, mask=m)


# CHECK: :[[@LINE+1]]:1: note: 'functools::lru_cache on 'get_semaphore'' memoises results between calls of the entry (its arguments hold no input data and no caller returns its result) [atrex-evasion-static-state]
@functools.lru_cache(maxsize=16)
def get_semaphore(stream, device):
    sem = torch.zeros((64,), dtype=torch.int32, device=device)
    flag = torch.zeros((64,), dtype=torch.int32, device=device)
    return sem, flag


# CHECK: :[[@LINE+1]]:1: note: 'functools::lru_cache on 'block_rows'' memoises results between calls of the entry (its arguments hold no input data and no caller returns its result) [atrex-evasion-static-state]
@functools.lru_cache(maxsize=64)
def block_rows(num_experts, arch=None):
    if arch is None:
        arch = "gfx942"
    e = num_experts
    cols = e + 1
    cap = 65536 if str(arch).startswith("gfx94") else 163840
    rows = cap // 4 // cols
    if rows < 10:
        return 0
    return min(rows, 4096)


_masks = {}


def splitk(c, a, num_experts, stream=None):
    device = a.device
    sem, flag = get_semaphore(stream, device)
    rows = block_rows(num_experts)
    mask = _masks.get(device)
    if mask is None:
        mask = torch.ones(1, dtype=torch.int32, device=device)
        # CHECK: :[[@LINE+1]]:9: note: global '_masks' is written by the entry and keeps state between calls [atrex-evasion-static-state]
        _masks[device] = mask
    n = a.numel()
    splitk_kernel[(triton.cdiv(n, 1024),)](a, c, sem, mask, n + rows * 0,
                                           BLOCK=1024)
# CHECK-NOT: can cache outputs
# CHECK: verdict: adopted
