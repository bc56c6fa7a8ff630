"""H200 measured profile and production-kernel check of the semantic rooflines.

Run on the device machine (torch + triton, no LLVM):
    python3 bench/results/roofline-h200-bench.py bench/results/roofline-h200-problems.json $OUT

1. Measured ceilings: streaming copy (read + write bytes) and read-only
   bandwidth of a 4 GiB buffer; 8192^3 GEMMs per dtype on random data.
2. For one realistic problem per starter operator (counts from
   atrex-roofline, in the problems file): the best production kernel torch has
   there, timed with triton.testing.do_bench (median, L2 flushed before each
   call), and T_roofline / T_production under the measured and the datasheet
   ceilings. Every ratio must be <= 1. Run 1 summed the engines' times; run 2
   (this version) takes the slowest engine, see docs/roofline.md.
"""
import json
import math
import os
import sys
import traceback

import torch
import torch.nn.functional as F
import triton.testing

DEV = "cuda"
BF16, FP8 = torch.bfloat16, torch.float8_e4m3fn
DATASHEET = {"bw": 4.8e12, "matrix": {"bf16": 989.4e12, "fp16": 989.4e12, "tf32": 494.7e12,
                                      "fp8": 1978.9e12},
             "vector": {"fp32": 66.9e12, "bf16": 133.8e12, "fp16": 133.8e12}}


def bench(fn, rep=200):
    return triton.testing.do_bench(fn, warmup=50, rep=rep, return_mode="median") * 1e-3


def measure_profile():
    prof = {}
    n = 1 << 30  # 4 GiB of fp32
    src = torch.randn(n, device=DEV)
    dst = torch.empty_like(src)
    t = bench(lambda: dst.copy_(src))
    prof["copy_tbps"] = 2 * 4 * n / t / 1e12
    t_sum = bench(lambda: torch.sum(src))
    t_max = bench(lambda: torch.amax(src))
    prof["read_tbps"] = 4 * n / min(t_sum, t_max) / 1e12
    del src, dst
    torch.cuda.empty_cache()
    # Large GEMMs on random data: the ceiling of a dtype is the best rate
    # over a fixed set of large shapes (M, N, K), never the problems' shapes.
    shapes = [(8192, 8192, 8192), (16384, 8192, 8192), (8192, 16384, 8192), (16384, 16384, 16384)]
    gemm, per_shape = {}, {}
    one = torch.tensor(1.0, device=DEV)
    for name, dtype, tf32 in (("bf16", BF16, False), ("fp16", torch.float16, False),
                              ("tf32", torch.float32, True), ("fp32", torch.float32, False),
                              ("fp8", FP8, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for (M, N, K) in shapes:
            if name == "fp32" and M * N * K > 8192**3 * 2:
                continue
            if name == "fp8":
                a = torch.randn(M, K, device=DEV).to(FP8)
                b = torch.randn(N, K, device=DEV).to(FP8).t()
                fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=BF16)
            else:
                a = torch.randn(M, K, device=DEV, dtype=dtype)
                b = torch.randn(K, N, device=DEV, dtype=dtype)
                fn = lambda: a @ b
            t = bench(fn, rep=300 if name != "fp32" else 500)
            rate = 2 * M * N * K / t / 1e12
            per_shape["%s %dx%dx%d" % (name, M, N, K)] = rate
            gemm[name] = max(gemm.get(name, 0.0), rate)
            del a, b
            torch.cuda.empty_cache()
    torch.backends.cuda.matmul.allow_tf32 = False
    prof["gemm_tflops"] = gemm
    prof["gemm_tflops_per_shape"] = per_shape
    return prof


def roofline(p, ceil, engines_overlap=True):
    """T_roofline as atrex-roofline computes it: engines overlap (max over
    engines, sum over the dtypes of one engine); with engines_overlap=False,
    the summed model of run 1."""
    times = []
    for engine, dtypes in p["flops"].items():
        if engine == "total":
            continue
        t_e = 0.0
        for dt, f in dtypes.items():
            key = {"f8e4m3": "fp8", "f32": "fp32", "f16": "fp16"}.get(dt, dt)
            peak = ceil[engine].get(key) or (ceil["vector"].get(key) if engine == "matrix" else ceil["vector"]["fp32"])
            t_e += f / peak
        times.append(t_e)
    t_c = (max(times) if engines_overlap else sum(times)) if times else 0.0
    return max(t_c, p["bytes"] / ceil["bw"])


def production(op, s):
    """Returns (callable, description) of the best production kernel for the problem."""
    g = torch.Generator(device=DEV).manual_seed(0)
    rn = lambda *shape, dtype=BF16: torch.randn(*shape, device=DEV, generator=g).to(dtype)
    if op == "rms_norm":
        x, w = rn(s["T"], s["H"]), rn(s["H"])
        return (lambda: F.rms_norm(x, (s["H"],), w, 1e-6)), "torch F.rms_norm"
    if op == "fused_add_rms_norm":
        x, r, w = rn(s["T"], s["H"]), rn(s["T"], s["H"]), rn(s["H"])
        def f():
            r2 = x + r
            return F.rms_norm(r2, (s["H"],), w, 1e-6), r2
        return f, "torch add + F.rms_norm"
    if op == "silu_and_mul":
        x = rn(s["T"], 2 * s["D"])
        return (lambda: F.silu(x[:, :s["D"]]) * x[:, s["D"]:]), "torch silu * mul"
    if op == "rotary_embedding":
        T, Hq, Hk, D, P = s["T"], s["Hq"], s["Hk"], s["D"], s["P"]
        pos = torch.arange(T, device=DEV)
        q, k, cache = rn(T, Hq * D), rn(T, Hk * D), rn(P, D, dtype=torch.float32)
        def f():
            cs = cache[pos]
            cos, sin = cs[:, None, : D // 2], cs[:, None, D // 2:]
            outs = []
            for x, h in ((q, Hq), (k, Hk)):
                x = x.view(T, h, D).float()
                x1, x2 = x[..., : D // 2], x[..., D // 2:]
                outs.append(torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), -1).to(BF16))
            return outs
        return f, "torch eager NeoX rotation (gather, mul, sub/add, cat)"
    if op == "per_token_group_quant_fp8":
        T, H = s["T"], s["H"]
        x = rn(T, H)
        def f():
            xg = x.view(T, H // 128, 128).float()
            sc = xg.abs().amax(-1, keepdim=True).clamp(min=1e-10) / 448.0
            return (xg / sc).clamp(-448, 448).to(FP8), sc
        return f, "torch eager group quantization"
    if op == "topk_softmax":
        x = rn(s["T"], s["E"], dtype=torch.float32)
        def f():
            w, i = torch.topk(torch.softmax(x, -1), s["K"])
            return w / w.sum(-1, keepdim=True), i.int()
        return f, "torch softmax + topk + renormalize"
    if op == "gemm_bf16":
        x, w = rn(s["M"], s["K"]), rn(s["N"], s["K"])
        return (lambda: F.linear(x, w)), "cuBLAS through F.linear"
    if op == "fp8_blockscale_gemm":
        M, N, K = s["M"], s["N"], s["K"]
        xq, wq = rn(M, K, dtype=FP8), rn(N, K, dtype=FP8)
        sx = torch.rand(M, K // 128, device=DEV) + 0.5
        sw = torch.rand(N // 128, K // 128, device=DEV) + 0.5
        try:
            sa = sx.t().contiguous().t()
            sb = sw.t()
            torch._scaled_mm(xq, wq.t(), sa, sb, out_dtype=BF16)
            return (lambda: torch._scaled_mm(xq, wq.t(), sa, sb, out_dtype=BF16)), \
                "torch._scaled_mm, 1x128 x 128x128 block scales"
        except Exception as e:  # fall back to per-tensor scales: the same fp8 matrix work
            one = torch.tensor(1.0, device=DEV)
            return (lambda: torch._scaled_mm(xq, wq.t(), one, one, out_dtype=BF16)), \
                "torch._scaled_mm, per-tensor scales (block scales unsupported: %s)" % type(e).__name__
    if op == "paged_attention_decode":
        B, Hq, Hk, D, L = s["B"], s["Hq"], s["Hk"], s["D"], s["MB"] * s["BS"]
        q, k, v = rn(B, Hq, 1, D), rn(B, Hk, L, D), rn(B, Hk, L, D)
        return (lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)), \
            "torch SDPA over contiguous K/V (no paging; same bytes)"
    if op == "flash_attention_prefill":
        T, B, Hq, Hk, D = s["T"], s["B"], s["Hq"], s["Hk"], s["D"]
        L = T // B
        q, k, v = rn(B, Hq, L, D), rn(B, Hk, L, D), rn(B, Hk, L, D)
        return (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)), \
            "torch SDPA causal (flash backend), equal-length sequences"
    if op in ("fused_moe", "fp8_blockscale_fused_moe"):
        T, H, E, I, K = s["T"], s["H"], s["E"], s["I"], s["K"]
        x = rn(T, H)
        ids = (torch.arange(T * K, device=DEV) % E).view(T, K)
        tw = torch.rand(T, K, device=DEV)
        flat = ids.flatten()
        order = torch.argsort(flat, stable=True)
        counts = torch.bincount(flat, minlength=E)
        offs = torch.cumsum(counts, 0).int()
        tok = order // K
        if op == "fused_moe":
            w1, w2 = rn(E, 2 * I, H), rn(E, H, I)
            def f():
                a = x[tok]
                g1 = torch._grouped_mm(a, w1.transpose(-2, -1), offs=offs)
                h = F.silu(g1[:, :I]) * g1[:, I:]
                y = torch._grouped_mm(h, w2.transpose(-2, -1), offs=offs)
                out = torch.zeros(T, H, device=DEV, dtype=torch.float32)
                out.index_add_(0, tok, y.float() * tw.flatten()[order, None])
                return out.to(BF16)
            try:
                f()
                return f, "torch._grouped_mm (bf16) + silu*mul + index_add"
            except Exception as e:
                bounds = [0] + offs.tolist()
                def g():
                    a = x[tok]
                    ys = []
                    for e_ in range(E):
                        lo, hi = bounds[e_], bounds[e_ + 1]
                        g1 = F.linear(a[lo:hi], w1[e_])
                        ys.append(F.linear(F.silu(g1[:, :I]) * g1[:, I:], w2[e_]))
                    y = torch.cat(ys)
                    out = torch.zeros(T, H, device=DEV, dtype=torch.float32)
                    out.index_add_(0, tok, y.float() * tw.flatten()[order, None])
                    return out.to(BF16)
                return g, "per-expert cuBLAS F.linear loop (_grouped_mm failed: %s)" % type(e).__name__
        w1, w2 = rn(E, 2 * I, H, dtype=FP8), rn(E, H, I, dtype=FP8)
        s1 = torch.rand(E, 2 * I, device=DEV) + 0.5
        s2 = torch.rand(E, H, device=DEV) + 0.5
        def q8(t):
            sc = t.float().abs().amax(-1).clamp(min=1e-10) / 448.0
            return (t.float() / sc[:, None]).clamp(-448, 448).to(FP8), sc
        def f():
            a, sa = q8(x[tok])
            g1 = torch._scaled_grouped_mm(a, w1.transpose(-2, -1), sa, s1, offs=offs, out_dtype=BF16)
            h, sh = q8(F.silu(g1[:, :I]) * g1[:, I:])
            y = torch._scaled_grouped_mm(h, w2.transpose(-2, -1), sh, s2, offs=offs, out_dtype=BF16)
            out = torch.zeros(T, H, device=DEV, dtype=torch.float32)
            out.index_add_(0, tok, y.float() * tw.flatten()[order, None])
            return out.to(BF16)
        f()
        return f, "torch._scaled_grouped_mm (fp8, row-wise scales) + quant + index_add"
    raise ValueError(op)


def main():
    problems = json.load(open(sys.argv[1]))["problems"]
    out_dir = sys.argv[2]
    print(torch.__version__, torch.cuda.get_device_name(0), flush=True)
    prof = measure_profile()
    print(json.dumps(prof), flush=True)
    measured = {"bw": prof["copy_tbps"] * 1e12,
                "matrix": dict(DATASHEET["matrix"], **{k: v * 1e12 for k, v in prof["gemm_tflops"].items() if k != "fp32"}),
                "vector": dict(DATASHEET["vector"], fp32=prof["gemm_tflops"]["fp32"] * 1e12)}
    rows = []
    for p in problems:
        row = {"operator": p["operator"], "problem": p["problem"], "shape": p["shape"]}
        try:
            fn, desc = production(p["operator"], p["shape"])
            fn()
            torch.cuda.synchronize()
            t = bench(fn)
            row.update(kernel=desc, t_production_s=t,
                       t_roofline_measured_s=roofline(p, measured),
                       t_roofline_datasheet_s=roofline(p, DATASHEET),
                       t_roofline_measured_summed_engines_s=roofline(p, measured, False))
            row["ratio_measured"] = row["t_roofline_measured_s"] / t
            row["ratio_datasheet"] = row["t_roofline_datasheet_s"] / t
        except Exception as e:
            row["error"] = "".join(traceback.format_exception_only(type(e), e)).strip()[:400]
        rows.append(row)
        print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "profile": prof, "rows": rows},
              open(os.path.join(out_dir, "roofline-h200-results.json"), "w"), indent=1)
    print("\n%-26s %-14s %12s %12s %12s %8s %8s" % ("operator", "problem", "T_prod[us]", "T_meas[us]",
                                                  "T_ds[us]", "r_meas", "r_ds"))
    for r in rows:
        if "error" in r:
            print("%-26s %-14s ERROR %s" % (r["operator"], r["problem"], r["error"][:80]))
            continue
        print("%-26s %-14s %12.2f %12.2f %12.2f %8.3f %8.3f" % (
            r["operator"], r["problem"], r["t_production_s"] * 1e6, r["t_roofline_measured_s"] * 1e6,
            r["t_roofline_datasheet_s"] * 1e6, r["ratio_measured"], r["ratio_datasheet"]))


if __name__ == "__main__":
    main()
