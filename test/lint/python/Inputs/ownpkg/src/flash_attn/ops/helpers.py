# Helpers of the package: a launch-size heuristic, a kernel other modules
# launch, a finishing step in PyTorch, and a kernel nobody launches.
import torch
import triton
import triton.language as tl


def pick_block(n):
    return min(1024, triton.next_power_of_2(n))


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * s, mask=m)


@triton.jit
def spare_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)


def finish(partial):
    return torch.sum(partial, dim=0)
