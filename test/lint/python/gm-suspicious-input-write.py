# GPU MODE: the harness computes the expected result from the inputs it
# passed, after the call. An entry that overwrites an input in place and
# returns something else makes the check compare against what it wrote
# there (atrex-evasion-input-write). Writing into the output buffer the
# harness passes in `data` and returning it, writing into tensors the
# entry allocated, and returning nothing (destination passing) are not.
# RUN: not atrex-lint --no-snippets --entry=custom_kernel %s 2>&1 | FileCheck %s --check-prefix=WHOLE
# RUN: not atrex-lint --no-snippets --entry=unpacked_write %s 2>&1 | FileCheck %s --check-prefix=PART
# RUN: atrex-lint --no-snippets --entry=honest_separate_output %s 2>&1 | FileCheck %s --check-prefix=HONEST
# RUN: atrex-lint --no-snippets --entry=local_in_place %s 2>&1 | FileCheck %s --check-prefix=LOCAL
# RUN: atrex-lint --no-snippets --entry=output_in_data %s 2>&1 | FileCheck %s --check-prefix=INOUT
# RUN: not atrex-lint --no-snippets --entry=destination_passing %s 2>&1 | FileCheck %s --check-prefix=DEST
# RUN: not atrex-lint --no-snippets --entry=ModelNew.forward %s 2>&1 | FileCheck %s --check-prefix=KB
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def custom_kernel(data):
    # WHOLE: :[[@LINE+1]]:5: error: input 'data' of the entry is overwritten in place ('data[...] = ...') and the entry returns something else: the harness checks the result against its inputs after the call [atrex-evasion-input-write]
    data[...] = torch.zeros_like(data)
    return torch.zeros_like(data)
# WHOLE: verdict: suspicious (suspicious: atrex-evasion-input-write (data)


def unpacked_write(data):
    a, b = data
    out = torch.empty_like(a)
    copy_kernel[(1,)](b, out, b.numel(), BLOCK=1024)
    # PART: :[[@LINE+1]]:5: error: input 'data[0]' of the entry is overwritten in place ('a.copy_(...)') and the entry returns something else
    a.copy_(out)
    return out
# PART: verdict: suspicious (suspicious: atrex-evasion-input-write (data[0])


def honest_separate_output(data):
    x = data
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
# HONEST-NOT: atrex-evasion-input-write
# HONEST: verdict: adopted


def local_in_place(data):
    out = torch.empty_like(data)
    out[...] = 0
    out.zero_()
    copy_kernel[(1,)](data, out, data.numel(), BLOCK=1024)
    return out
# LOCAL-NOT: atrex-evasion-input-write
# LOCAL: verdict: adopted


def output_in_data(data):
    a, b, c = data
    c.zero_()
    c[-1:] = 0
    copy_kernel[(1,)](a, c, a.numel(), BLOCK=1024)
    return c
# INOUT-NOT: atrex-evasion-input-write
# INOUT: verdict: adopted


def destination_passing(data):
    x, out = data
    out.copy_(x)
# DEST-NOT: atrex-evasion-input-write
# DEST: verdict: fallback (fallback: PyTorch/ATen (at::Tensor::copy_)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        copy_kernel[(1,)](x, out, x.numel(), BLOCK=1024)
        # KB: :[[@LINE+1]]:9: error: input 'x' of the entry is overwritten in place ('x.fill_(...)') and the entry returns something else
        x.fill_(0)
        return out
# KB: verdict: suspicious (suspicious: atrex-evasion-input-write (x)
