# A script's `__main__` block is its entry: it reads argv and the
# environment, makes inputs, calls the own Triton wrapper, compares with
# results of the own kernel, times it and exits. All of that is glue in a
# program: adopted.
# RUN: atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: warning
# CHECK-NOT: error
# CHECK: note: analysed as a program
# CHECK: verdict: adopted (adopted: 1 own kernel launched from 'main', no delegation)
import os
import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(src, dst, count, alpha, beta, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    keep = idx < count
    v = tl.load(src + idx, mask=keep)
    tl.store(dst + idx, v * alpha + beta, mask=keep)


def scale_shift(src, alpha, beta):
    dst = torch.empty_like(src)
    count = dst.numel()
    scale_shift_kernel[(triton.cdiv(count, 512),)](src, dst, count, alpha, beta, TILE=512)
    return dst


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 16
    dev = os.environ.get("DEVICE", "cuda")
    torch.manual_seed(1234)
    src = torch.randn(count, device=dev)
    ids = torch.arange(count, device=dev)
    ones = torch.ones(count, device=dev)
    src.uniform_(-1.0, 1.0)
    first = scale_shift(src, 2.0, 1.0)
    again = scale_shift(src, 2.0, 1.0)
    ok = torch.allclose(first, again) and torch.equal(first, again)
    torch.testing.assert_close(first, again)
    start = time.perf_counter()
    ms = triton.testing.do_bench(lambda: scale_shift(src, 2.0, 1.0))
    print(f"ok={ok} {ms:.3f} ms, {time.perf_counter() - start:.2f} s", ids.shape)
    sys.exit(0 if ok else 1)
