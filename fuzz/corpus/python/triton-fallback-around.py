# The Triton kernel runs, but F.layer_norm around it is delegation.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
import torch.nn.functional as F


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        # CHECK: triton-fallback-around.py:[[@LINE+1]]:16: warning: call to 'torch::nn::functional::layer_norm' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        return F.layer_norm(out, out.shape[-1:])
# CHECK: verdict: fallback
