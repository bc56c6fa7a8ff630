# X.apply(...) of an own torch.autograd.Function runs its forward and its
# backward; `ctx` attributes are per call, not state.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: atrex-evasion-static-state
# CHECK-NOT: atrex-no-kernel
import torch
import triton
import triton.language as tl


@triton.jit
def norm_kernel(x_ptr, w_ptr, out_ptr, n, eps, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * tl.load(w_ptr + offs, mask=m) + eps, mask=m)


@triton.jit
def norm_grad_kernel(dy_ptr, w_ptr, dx_ptr, part_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    dy = tl.load(dy_ptr + offs, mask=m)
    tl.store(dx_ptr + offs, dy * tl.load(w_ptr + offs, mask=m), mask=m)
    tl.store(part_ptr + offs, dy, mask=m)


class ScaleNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, shape, weight, eps=1e-6):
        out = torch.empty_like(x)
        norm_kernel[(1,)](x, weight, out, x.numel(), eps, BLOCK=1024)
        ctx.save_for_backward(x, weight)
        ctx.shape = shape
        ctx.eps = eps
        return out

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        dx = torch.empty_like(x)
        part = torch.empty((4, x.shape[-1]), device=x.device)
        norm_grad_kernel[(1,)](dy, weight, dx, part, x.numel(), BLOCK=1024)
        # CHECK: triton-autograd-apply.py:[[@LINE+2]]:14: warning: call to 'torch::sum' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        # CHECK: note: reached from entry 'scale_norm' -> 'ScaleNorm.backward'
        dw = torch.sum(part, dim=0)
        return dx, None, dw, None


def scale_norm(x, shape, weight, eps=1e-6):
    return ScaleNorm.apply(x, shape, weight, eps)
# CHECK: verdict: fallback (fallback: PyTorch/ATen (torch::sum))
