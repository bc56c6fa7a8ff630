import operator

import torch
import triton
import triton.language as tl

from kvtools.ops.versions import at_least, cuda_version, installed, named_module, sm_count


@triton.jit
def scale_kernel(src, dst, count, factor, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    keep = idx < count
    tl.store(dst + idx, tl.load(src + idx, mask=keep) * factor, mask=keep)


def scale(src, factor):
    dst = torch.empty_like(src)
    tile = 1024 if at_least("triton", operator.ge, "3.0") else 512
    grid = (min(sm_count(src.device), triton.cdiv(src.numel(), tile)),)
    if cuda_version("torch")[1] is None or installed("triton") is None:
        grid = (named_module(),)
    scale_kernel[grid](src, dst, src.numel(), factor, TILE=tile)
    return dst
