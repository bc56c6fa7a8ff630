#!/usr/bin/env python3
"""Time atrex-lint on a KernelBench Python file against clang -fsyntax-only
on the CUDA extracted from it.

Generates a 200-line KernelBench submission (ModelNew + load_inline) whose
cuda_sources string is 100 lines, writes the string alone to a .cu file, and
times, alternately, `N` runs each of:

  clang    clang++-22 -fsyntax-only with the command line atrex-lint uses for
           that .cu file (`atrex-lint --print-command`), no PCH
  no-pch   atrex-lint --no-pch on the .py file (Python parse + the extracted
           unit parsed without PCH + checks)
  warm     atrex-lint on the .py file with a warm PCH cache

Usage: bench/python_frontend_bench.py [--lint build/bin/atrex-lint] [--reps 3]
                                      [--out bench/results/python-frontend.md]
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

KERNEL_LINES = 100
FILE_LINES = 200


def cuda_source():
    """A 100-line CUDA source: row-wise softmax and a bias-GELU epilogue."""
    lines = [
        "#include <torch/extension.h>",
        "#include <cuda_runtime.h>",
        "",
        "template <int BLOCK>",
        "__device__ float block_max(float v, float* smem) {",
        "  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));",
        "  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;",
        "  __syncthreads();",
        "  v = threadIdx.x < BLOCK / 32 ? smem[threadIdx.x] : -INFINITY;",
        "  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));",
        "  __syncthreads();",
        "  return v;",
        "}",
        "",
        "template <int BLOCK>",
        "__device__ float block_sum(float v, float* smem) {",
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);",
        "  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;",
        "  __syncthreads();",
        "  v = threadIdx.x < BLOCK / 32 ? smem[threadIdx.x] : 0.f;",
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);",
        "  __syncthreads();",
        "  return v;",
        "}",
        "",
        "template <int BLOCK>",
        "__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {",
        "  __shared__ float smem[32];",
        "  const float* row = x + (size_t)blockIdx.x * cols;",
        "  float* out = y + (size_t)blockIdx.x * cols;",
        "  float m = -INFINITY;",
        "  for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, row[c]);",
        "  m = block_max<BLOCK>(m, smem);",
        "  float s = 0.f;",
        "  for (int c = threadIdx.x; c < cols; c += BLOCK) s += __expf(row[c] - m);",
        "  s = block_sum<BLOCK>(s, smem);",
        "  const float inv = 1.f / s;",
        "  for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = __expf(row[c] - m) * inv;",
        "}",
        "",
        "__device__ __forceinline__ float gelu(float v) {",
        "  const float k = 0.7978845608f;",
        "  return 0.5f * v * (1.f + tanhf(k * (v + 0.044715f * v * v * v)));",
        "}",
        "",
        "__global__ void bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ b,",
        "                                 float* __restrict__ y, int rows, int cols) {",
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
        "  if (i >= rows * cols) return;",
        "  y[i] = gelu(x[i] + b[i % cols]);",
        "}",
        "",
        "static void check_input(const torch::Tensor& t, const char* name) {",
        "  TORCH_CHECK(t.is_cuda(), name, \" must be a CUDA tensor\");",
        "  TORCH_CHECK(t.is_contiguous(), name, \" must be contiguous\");",
        "  TORCH_CHECK(t.scalar_type() == torch::kFloat, name, \" must be float32\");",
        "}",
        "",
        "torch::Tensor softmax_rows(torch::Tensor x) {",
        "  check_input(x, \"x\");",
        "  TORCH_CHECK(x.dim() == 2, \"x must be 2-D\");",
        "  auto y = torch::empty_like(x);",
        "  const int rows = x.size(0), cols = x.size(1);",
        "  constexpr int BLOCK = 256;",
        "  softmax_kernel<BLOCK><<<rows, BLOCK>>>(x.data_ptr<float>(), y.data_ptr<float>(), cols);",
        "  return y;",
        "}",
        "",
        "torch::Tensor bias_gelu(torch::Tensor x, torch::Tensor b) {",
        "  check_input(x, \"x\");",
        "  check_input(b, \"b\");",
        "  TORCH_CHECK(x.dim() == 2 && b.dim() == 1, \"shapes\");",
        "  TORCH_CHECK(b.size(0) == x.size(1), \"bias size\");",
        "  auto y = torch::empty_like(x);",
        "  const int rows = x.size(0), cols = x.size(1);",
        "  const int n = rows * cols;",
        "  const int threads = 256;",
        "  const int blocks = (n + threads - 1) / threads;",
        "  bias_gelu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), b.data_ptr<float>(),",
        "                                        y.data_ptr<float>(), rows, cols);",
        "  return y;",
        "}",
        "",
        "torch::Tensor fused_forward(torch::Tensor x, torch::Tensor b) {",
        "  auto h = bias_gelu(x, b);",
        "  return softmax_rows(h);",
        "}",
    ]
    while len(lines) < KERNEL_LINES:
        lines.append("// " + "-" * 60)
    assert len(lines) == KERNEL_LINES
    return "\n".join(lines) + "\n"


def python_file(cuda):
    head = [
        "import math",
        "",
        "import torch",
        "import torch.nn as nn",
        "import torch.nn.functional as F",
        "from torch.utils.cpp_extension import load_inline",
        "",
        "# Fused bias + GELU + row softmax (reference: F.softmax(F.gelu(x + b), -1)).",
        'cuda_source = """',
    ]
    tail = [
        '"""',
        "",
        'cpp_source = "torch::Tensor fused_forward(torch::Tensor x, torch::Tensor b);"',
        "",
        "fused = load_inline(",
        '    name="fused_bias_gelu_softmax",',
        "    cpp_sources=cpp_source,",
        "    cuda_sources=cuda_source,",
        '    functions=["fused_forward"],',
        "    verbose=False,",
        ")",
        "",
        "",
        "class Model(nn.Module):",
        '    """The reference model."""',
        "",
        "    def __init__(self, features):",
        "        super().__init__()",
        "        self.bias = nn.Parameter(torch.zeros(features))",
        "",
        "    def forward(self, x):",
        "        return F.softmax(F.gelu(x + self.bias), dim=-1)",
        "",
        "",
        "class ModelNew(nn.Module):",
        '    """Same computation with one fused extension call."""',
        "",
        "    def __init__(self, features):",
        "        super().__init__()",
        "        self.bias = nn.Parameter(torch.zeros(features))",
        "        self.fused = fused",
        "",
        "    def forward(self, x):",
        "        x = x.contiguous()",
        "        rows, cols = x.shape",
        "        assert cols == self.bias.numel()",
        "        return self.fused.fused_forward(x, self.bias)",
        "",
        "",
        "batch_size = 128",
        "features = 4096",
        "",
        "",
        "def get_inputs():",
        "    return [torch.randn(batch_size, features).cuda()]",
        "",
        "",
        "def get_init_inputs():",
        "    return [features]",
    ]
    body = cuda.rstrip("\n").split("\n")
    lines = head + body + tail
    while len(lines) < FILE_LINES:
        lines.append("# " + "=" * 60)
    assert len(lines) == FILE_LINES, len(lines)
    return "\n".join(lines) + "\n"


def timed(cmd, env):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.monotonic() - t0, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lint", default="build/bin/atrex-lint")
    ap.add_argument("--clang", default="/usr/lib/llvm-22/bin/clang++")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix="atrex-pybench-")
    cuda = cuda_source()
    py = os.path.join(work, "model_new.py")
    cu = os.path.join(work, "extracted.cu")
    open(py, "w").write(python_file(cuda))
    open(cu, "w").write(cuda)
    env = dict(os.environ)
    env["ATREX_CACHE_DIR"] = os.path.join(work, "cache")

    cl = subprocess.run([a.lint, "--print-command", cu], capture_output=True,
                        text=True, env=env, check=True).stdout.split()
    clang_cmd = [a.clang] + cl[1:]
    lint_nopch = [a.lint, "--no-pch", py]
    lint = [a.lint, py]

    # Sanity: the file is adopted, and the PCH is built once (cold).
    cold, p = timed(lint, env)
    if p.returncode != 0:
        sys.exit("atrex-lint did not adopt the benchmark file:\n" + p.stdout +
                 p.stderr)
    times = {"clang": [], "no-pch": [], "warm": []}
    for _ in range(a.reps):
        times["clang"].append(timed(clang_cmd, env)[0])
        times["no-pch"].append(timed(lint_nopch, env)[0])
        times["warm"].append(timed(lint, env)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = [
        "| measurement | median (s) | runs (s) | ratio to clang |",
        "|---|---:|---|---:|",
    ]
    for k, label in (("clang", "clang++-22 -fsyntax-only extracted.cu"),
                     ("no-pch", "atrex-lint --no-pch model_new.py"),
                     ("warm", "atrex-lint model_new.py (warm PCH)")):
        rows.append(f"| {label} | {med[k]:.2f} | " +
                    ", ".join(f"{t:.2f}" for t in times[k]) +
                    f" | {med[k] / med['clang']:.2f} |")
    rows.append(f"| atrex-lint model_new.py (cold PCH, once) | {cold:.2f} | "
                f"{cold:.2f} | {cold / med['clang']:.2f} |")
    report = "\n".join(rows) + "\n"
    print("clang command:", " ".join(shlex.quote(c) for c in clang_cmd))
    print(report)
    if a.out:
        with open(a.out, "a") as f:
            f.write(report)


if __name__ == "__main__":
    main()
