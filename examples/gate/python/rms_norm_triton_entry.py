# rms_norm in Triton, called in the card's destination-passing form
# (format "entry"): rms_norm(out, x, w, eps) writes out. One program per row;
# the row is read once into registers (H up to 16384). Expected: adopted.
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(out_ptr, x_ptr, w_ptr, H, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(x_ptr + row * H + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / H
    r = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * H + cols, (x * r * w).to(tl.bfloat16), mask=mask)


def rms_norm(out, x, w, eps):
    T, H = x.shape
    BLOCK = triton.next_power_of_2(H)
    _rms_norm_kernel[(T,)](out, x, w, H, eps, BLOCK=BLOCK,
                           num_warps=8 if BLOCK >= 4096 else 4)
