# An own torch.autograd.Function whose forward and backward only launch own
# kernels, called through .apply: adopted (both kernels launched).
# RUN: atrex-lint --no-snippets --inventory %s 2>&1 | FileCheck %s
# CHECK-NOT: warning
# CHECK: kernel 'mul_kernel' at {{.*}}:[[@LINE+9]]:5: launched
# CHECK: kernel 'mul_grad_kernel' at {{.*}}:[[@LINE+15]]:5: launched
# CHECK: verdict: adopted (adopted: 2 own kernels launched from the entry, no delegation)
import torch
import triton
import triton.language as tl


@triton.jit
def mul_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * s, mask=m)


@triton.jit
def mul_grad_kernel(dy_ptr, dx_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dx_ptr + offs, tl.load(dy_ptr + offs, mask=m) * s, mask=m)


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        out = torch.empty_like(x)
        mul_kernel[(1,)](x, out, x.numel(), s, BLOCK=1024)
        ctx.s = s
        return out

    @staticmethod
    def backward(ctx, dy):
        dx = torch.empty_like(dy)
        mul_grad_kernel[(1,)](dy, dx, dy.numel(), ctx.s, BLOCK=1024)
        return dx, None


def mul(x, s: float):
    return Mul.apply(x, s)
