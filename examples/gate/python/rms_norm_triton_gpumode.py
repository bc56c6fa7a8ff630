# rms_norm in the GPU MODE form: custom_kernel(data) gets the card's inputs
# (x, w, eps) and returns the output, which it allocates. Triton kernel.
# Expected: adopted.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_rows(out_ptr, x_ptr, w_ptr, H, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < H
    x = tl.load(x_ptr + row * H + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / H + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * H + cols, (x * r * w).to(tl.bfloat16), mask=mask)


def custom_kernel(data):
    x, w, eps = data
    out = torch.empty_like(x)
    T, H = x.shape
    rmsnorm_rows[(T,)](out, x, w, H, eps, BLOCK=triton.next_power_of_2(H),
                       num_warps=8)
    return out
