"""Matrix ceilings of one GPU, measured the way the suite's GEMMs run.

Run on the device machine (torch + triton, no LLVM):
    python3 bench/roofline/gemm-ceiling.py $OUT/gemm-ceiling.json

The first measured profile (bench/results/roofline-h200-bench.py, 2026-11-29)
took the best of four large NN GEMMs (`a @ b`, b stored K x N) on randn data.
The production set's cuBLAS GEMMs in the suite ran faster than that ceiling
(bench/results/gate-2026-12-02e: up to 806.7 TFLOP/s against 703.2). This
script times, per dtype, the same four shapes and the suite's largest
gemm_bf16 shapes, in both layouts (NN: b is K x N; TN: w is N x K and the
product is `x @ w.t()`, as the suite's operator and the gate's reference are
written), on randn data and on the gate's data (x rows scaled, w / sqrt(K)),
and reports each rate and the best per dtype. Times: triton.testing.do_bench
median (warm-up 50 ms, 300 ms of repetitions), 2 * M * N * K FLOP.
"""
import json
import math
import sys

import torch
import triton.testing

DEV = "cuda"
SHAPES = {
    "square": [(8192, 8192, 8192), (16384, 8192, 8192), (8192, 16384, 8192), (16384, 16384, 16384)],
    # the suite's gemm_bf16 problems the production set ran fastest (M, N, K)
    "suite": [(16384, 14336, 8192), (8192, 28672, 4096), (16384, 6144, 4096), (8192, 4096, 14336),
              (16384, 8192, 7168), (8192, 3584, 18944)],
}


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median") * 1e-3


def operands(M, N, K, dtype, data, layout, g):
    x = torch.randn(M, K, device=DEV, generator=g)
    w = torch.randn(N, K, device=DEV, generator=g)
    if data == "gate":  # runtime/lib/ops/gemm_bf16.cpp: rows scaled, w / sqrt(K)
        x = x * (torch.rand(M, 1, device=DEV, generator=g) + 0.5)
        w = w / math.sqrt(K)
    if dtype == torch.float8_e4m3fn:
        x, w = x.to(dtype), w.to(dtype)
    else:
        x, w = x.to(dtype), w.to(dtype)
    b = w.t() if layout == "TN" else w.t().contiguous()
    return x, b


def main(out):
    g = torch.Generator(device=DEV)
    g.manual_seed(20261202)
    one = torch.tensor(1.0, device=DEV)
    rows, best = [], {}
    for name, dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16), ("fp8", torch.float8_e4m3fn)):
        for group, shapes in SHAPES.items():
            for (M, N, K) in shapes:
                for layout in ("NN", "TN"):
                    if name == "fp8" and layout == "NN":
                        continue  # _scaled_mm takes a column-major b only
                    for data in ("randn", "gate"):
                        x, b = operands(M, N, K, dtype, data, layout, g)
                        if name == "fp8":
                            fn = lambda: torch._scaled_mm(x, b, one, one, out_dtype=torch.bfloat16)
                        else:
                            fn = lambda: x @ b
                        t = bench(fn)
                        rate = 2 * M * N * K / t / 1e12
                        rows.append({"dtype": name, "group": group, "M": M, "N": N, "K": K,
                                     "layout": layout, "data": data, "seconds": t, "tflops": rate})
                        best[name] = max(best.get(name, 0.0), rate)
                        print(f"{name} {group} {M}x{N}x{K} {layout} {data}: {rate:.1f} TFLOP/s", flush=True)
                        del x, b
                        torch.cuda.empty_cache()
    doc = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "best_tflops": best, "rows": rows}
    json.dump(doc, open(out, "w"), indent=1)
    print("best:", json.dumps(best))


if __name__ == "__main__":
    main(sys.argv[1])
