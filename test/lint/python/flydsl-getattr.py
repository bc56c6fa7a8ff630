# getattr on torch next to a FlyDSL kernel (issue 19): a constant name is
# that function (fallback naming it); a name assembled at run time
# (`"mat" + "mul"`, a variable) hides the callee: atrex-evasion-indirect-call
# (suspicious), also through a local it is bound to. A dtype looked up by
# name and not called is not a call.
# RUN: not atrex-lint --no-snippets --entry=Constant.forward %s 2>&1 | FileCheck %s --check-prefix=CONST
# RUN: not atrex-lint --no-snippets --entry=Assembled.forward %s 2>&1 | FileCheck %s --check-prefix=ASM
# RUN: not atrex-lint --no-snippets --entry=ByVariable.forward %s 2>&1 | FileCheck %s --check-prefix=VAR
# RUN: atrex-lint --no-snippets --entry=DtypeByName.forward %s 2>&1 | FileCheck %s --check-prefix=DTYPE
import torch
import torch.nn as nn

import flydsl.compiler as flyc
import flydsl.expr as fx


@flyc.kernel
def neg_kernel(X: fx.Tensor, Y: fx.Tensor):
    i = fx.block_idx.x * 256 + fx.thread_idx.x
    xb = fx.rocdl.make_buffer_tensor(X)
    yb = fx.rocdl.make_buffer_tensor(Y)
    yb[i] = -xb[i]


@flyc.jit
def neg(X: fx.Tensor, Y: fx.Tensor, n: fx.Int32):
    neg_kernel(X, Y).launch(grid=(n // 256, 1, 1), block=(256, 1, 1))


class Constant(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        neg(x.view(-1), y.view(-1), x.numel())
        # CONST: :[[@LINE+1]]:16: warning: call to 'torch::softmax' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return getattr(torch, "softmax")(y, dim=-1)


class Assembled(nn.Module):
    def forward(self, a, b):
        # ASM: :[[@LINE+1]]:13: warning: call of a torch function looked up by a name assembled at run time: 'getattr(torch, "mat" + "mul")' whose target cannot be resolved [atrex-evasion-indirect-call]
        c = getattr(torch, "mat" + "mul")(a, b)
        y = torch.empty_like(c)
        neg(c.view(-1), y.view(-1), c.numel())
        return y


class ByVariable(nn.Module):
    def __init__(self, op="relu"):
        super().__init__()
        self.op = op

    def forward(self, x):
        fn = getattr(torch.nn.functional, self.op)
        # VAR: :[[@LINE+1]]:13: warning: call of a torch function looked up by a name assembled at run time: 'fn' whose target cannot be resolved [atrex-evasion-indirect-call]
        h = fn(x)
        y = torch.empty_like(h)
        neg(h.view(-1), y.view(-1), h.numel())
        return y


class DtypeByName(nn.Module):
    def __init__(self, dtype_name="float32"):
        super().__init__()
        self.dtype_name = dtype_name

    def forward(self, x):
        dt = getattr(torch, self.dtype_name)
        y = torch.empty(x.shape, dtype=dt, device=x.device)
        neg(x.view(-1), y.view(-1), x.numel())
        return y

# CONST: verdict: fallback (fallback: PyTorch/ATen (torch::softmax))
# ASM: verdict: suspicious (suspicious: atrex-evasion-indirect-call
# VAR: verdict: suspicious (suspicious: atrex-evasion-indirect-call (fn))
# DTYPE-NOT: warning:
# DTYPE: verdict: adopted
