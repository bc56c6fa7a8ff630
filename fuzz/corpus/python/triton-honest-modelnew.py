# KernelBench with Triton: ModelNew.forward calls a module-level wrapper that
# launches an autotuned kernel with a lambda grid.
# RUN: atrex-lint --inventory %s | FileCheck %s
# CHECK-NOT: warning
# CHECK: kernel 'relu_kernel' at {{.*}}triton-honest-modelnew.py:[[@LINE+11]]:5: launched
# CHECK: verdict: adopted
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                 key=["n"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)


def relu(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x.contiguous())
