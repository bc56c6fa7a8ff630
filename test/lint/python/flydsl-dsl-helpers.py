# FlyDSL kernel modules keep device helpers at module level (issue 19): a
# function that builds DSL code (fx.*) and never names torch is trace-time
# DSL code, its untyped parameters DSL values: `y.to(dtype)`, `v.bitcast()`,
# `u >> 16`, `v.shuffle(...)` there are not tensor operations. A helper that
# names torch and computes on a tensor the entry passes is still PyTorch
# compute (the HOST prefix).
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# RUN: not atrex-lint --no-snippets --entry=HostHelper.forward %s 2>&1 | FileCheck %s --check-prefix=HOST
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx

BLOCK = 256


def to_bf16_bits(y, elem_dtype):
    u = y.bitcast(fx.Uint32)
    upper = u >> 16
    rounded = (u + ((upper & 1) + 0x7FFF)) >> 16
    even = rounded.shuffle(rounded, [0, 2, 4, 6])
    return even.bitcast(elem_dtype)


def cast_out(y, elem_dtype):
    return y.to(elem_dtype)


def load_scalar(atom, divided, index):
    r = fx.make_rmem_tensor(1, fx.Float32)
    fx.copy(atom, fx.slice(divided, (None, index)), r)
    return fx.memref_load_vec(r)[0]


@flyc.kernel
def cast_kernel(X: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * BLOCK + fx.thread_idx.x
    atom = fx.make_copy_atom(fx.rocdl.BufferCopy32b(), fx.Float32)
    xd = fx.logical_divide(fx.rocdl.make_buffer_tensor(X), fx.make_layout(1, 1))
    yb = fx.rocdl.make_buffer_tensor(Y)
    v = load_scalar(atom, xd, i) * 2.0
    yb[i] = cast_out(to_bf16_bits(v, fx.BFloat16), fx.BFloat16)


@flyc.jit
def run_cast(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    cast_kernel(X, Y).launch(grid=(n // BLOCK, 1, 1), block=(BLOCK, 1, 1))


def reference_scale(t):
    return torch.mul(t, 2.0).to(torch.bfloat16)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape, dtype=torch.bfloat16, device=x.device)
        run_cast(x.view(-1), y.view(-1), x.numel())
        return y


class HostHelper(nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape, dtype=torch.bfloat16, device=x.device)
        run_cast(x.view(-1), y.view(-1), x.numel())
        # HOST: :[[@LINE-14]]:12: warning: call to 'torch::mul' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return reference_scale(x)

# CHECK-NOT: delegates
# CHECK: verdict: adopted (adopted: 1 own kernel launched from the entry, no delegation)
# HOST: verdict: fallback (fallback: PyTorch/ATen (torch::mul))
