# A thread pool in custom_kernel (Triton elsewhere): suspicious.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
import concurrent.futures
import torch
import triton
import triton.language as tl
from triton_kernels import add


def custom_kernel(data):
    x, y = data
    # CHECK: kb-suspicious-thread-pyonly.py:[[@LINE+1]]:10: error: call to 'concurrent::futures::ThreadPoolExecutor' starts a process or thread outside the harness's control [atrex-evasion-process]
    with concurrent.futures.ThreadPoolExecutor() as pool:
        return pool.submit(add, x, y).result()
# CHECK: verdict: suspicious
