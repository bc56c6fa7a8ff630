# GPU MODE: custom_kernel returns a view of its input; no kernel at all.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import torch


# CHECK: gm-no-kernel.py:[[@LINE+1]]:5: error: no kernel is defined: the submission launches no GPU code of its own [atrex-no-kernel]
def custom_kernel(data):
    x, y = data
    return x.view(-1)
# CHECK: verdict: no-kernel
