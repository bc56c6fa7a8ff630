# What `__main__` reaches counts: `main()` and the test and benchmark it
# runs (a `@triton.testing.perf_report` function through `.run`). The
# PyTorch reference of the benchmark is delegation; an own function that
# `__main__` never reaches does not count.
# RUN: not atrex-lint --no-snippets %s 2>&1 | FileCheck %s
# CHECK-NOT: torch::exp
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(src, dst, width, TILE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, TILE)
    v = tl.load(src + row * width + cols, mask=cols < width, other=float("-inf"))
    tl.store(dst + row, tl.max(v, axis=0))


def row_max(src):
    dst = torch.empty(src.shape[0], device=src.device, dtype=src.dtype)
    row_max_kernel[(src.shape[0],)](src, dst, src.shape[1], TILE=triton.next_power_of_2(src.shape[1]))
    return dst


def never_called(src):
    return torch.exp(src)


def check(rows, cols):
    src = torch.randn(rows, cols, device="cuda")
    # CHECK: program-main-reaches.py:[[@LINE+2]]:46: warning: call to 'at::Tensor::amax' delegates compute to PyTorch/ATen [atrex-delegation-torch]
    # CHECK-NEXT: note: reached from entry '__main__' -> 'main' -> 'check'
    torch.testing.assert_close(row_max(src), src.amax(dim=1))


@triton.testing.perf_report(
    triton.testing.Benchmark(x_names=["cols"], x_vals=[256, 1024], line_arg="impl",
                             line_vals=["triton", "torch"], line_names=["Triton", "Torch"],
                             plot_name="row-max", args={"rows": 512}))
def bench(rows, cols, impl):
    src = torch.randn(rows, cols, device="cuda")
    if impl == "torch":
        # CHECK: program-main-reaches.py:[[@LINE+2]]:48: warning: call to 'torch::max' delegates compute to PyTorch/ATen [atrex-delegation-torch]
        # CHECK-NEXT: note: reached from entry '__main__' -> 'main' -> 'bench'
        return triton.testing.do_bench(lambda: torch.max(src, dim=1))
    return triton.testing.do_bench(lambda: row_max(src))


def main():
    check(64, 300)
    bench.run(print_data=True)


if __name__ == "__main__":
    main()
# CHECK: verdict: fallback (fallback: PyTorch/ATen (at::Tensor::amax); fallback: PyTorch/ATen (torch::max))
