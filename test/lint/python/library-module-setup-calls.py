# A kernel module whose top level only sets things up (warnings, logging,
# registrations, a library's `set_*`/`enable_*`/`disable_*` configuration)
# is no script: its functions are the entries, as before.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import logging
import warnings

import numpy as np

import torch
import triton
import triton.language as tl

warnings.filterwarnings("ignore")
logging.basicConfig(level=logging.INFO)
np.set_printoptions(precision=4)


@triton.jit
def _add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(x_ptr + i, tl.load(x_ptr + i, mask=m) + tl.load(y_ptr + i, mask=m), mask=m)


def add_(x: torch.Tensor, y: torch.Tensor):
    n = x.numel()
    _add[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return x
# CHECK-NOT: <module>
# CHECK: note: analysed as a submission: its module-level functions are entries a harness calls
# CHECK: verdict: adopted
