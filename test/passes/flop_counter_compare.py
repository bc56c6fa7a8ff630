"""Compare atrex semantic FLOPs with torch.utils.flop_counter (meta tensors).

For each starter operator, a PyTorch formulation of the reference runs on
meta tensors under FlopCounterMode, and the atrex count comes from
`atrex-opt --atrex-instantiate-shape --atrex-semantic-work`. Every
difference must equal its documented explanation (docs/semantic-work.md,
"Comparison with torch.utils.flop_counter"); the script exits 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

META = torch.device("meta")
BF16 = torch.bfloat16
FP8 = torch.float8_e4m3fn
failures = []


def atrex_work(args, op, dims, facts=None):
    cmd = [args.atrex_opt, os.path.join(args.ops, op + ".mlir"),
           "--atrex-instantiate-shape=dims=" + ",".join(f"{k}={v}" for k, v in dims.items())]
    sw = "json=-"
    if facts is not None:
        fd, path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(facts, f)
        sw += " facts=" + path
    cmd += ["--atrex-semantic-work=" + sw, "-o", os.devnull]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]


def torch_flops(fn):
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


def check(op, torch_count, atrex_count, expected_diff, explanation):
    diff = torch_count - atrex_count
    ok = diff == expected_diff
    status = "PASS" if ok else "FAIL"
    print(f"{status} {op}: torch={torch_count} atrex={atrex_count} "
          f"torch-atrex={diff} expected={expected_diff}: {explanation}")
    if not ok:
        failures.append(op)


def meta(*shape, dtype=BF16):
    return torch.empty(*shape, dtype=dtype, device=META)


def matrix(work, dtype):
    return work["flops"].get("matrix", {}).get(dtype, 0)


def vector(work):
    return sum(work["flops"].get("vector", {}).values())


def gemm_bf16(args):
    M, N, K = 64, 4096, 2048
    w = atrex_work(args, "gemm_bf16", dict(M=M, N=N, K=K))
    t = torch_flops(lambda: F.linear(meta(M, K), meta(N, K)))
    check("gemm_bf16", t, matrix(w, "bf16"), 0,
          "both count 2*M*N*K for the matrix product")


def fp8_blockscale_gemm(args):
    M, N, K = 32, 1024, 512
    w = atrex_work(args, "fp8_blockscale_gemm", dict(M=M, N=N, K=K))

    def ref():
        xq, sx = meta(M, K, dtype=FP8), meta(M, K // 128, dtype=torch.float32)
        wq, sw = meta(N, K, dtype=FP8), meta(N // 128, K // 128, dtype=torch.float32)
        x = (xq.float().view(M, K // 128, 128) * sx[..., None]).view(M, K)
        wd = (wq.float().view(N // 128, 128, K // 128, 128)
              * sw[:, None, :, None]).view(N, K)
        return x @ wd.t()

    t = torch_flops(ref)
    check("fp8_blockscale_gemm", t, matrix(w, "f8e4m3"), 0,
          "both count 2*M*N*K for the fp8 matrix product")
    check("fp8_blockscale_gemm (vector)", 0, vector(w), -3 * M * N * (K // 128),
          "flop_counter ignores elementwise work; atrex counts the per-block "
          "promotion sx*sw*partial+acc, 3*M*N*(K/128) vector FLOPs")


def flash_attention_prefill(args):
    lens, Hq, Hk, D = [100, 256, 156], 8, 2, 64
    cu = [0]
    for L in lens:
        cu.append(cu[-1] + L)
    T = cu[-1]
    w = atrex_work(args, "flash_attention_prefill",
                   dict(T=T, B=len(lens), Hq=Hq, Hk=Hk, D=D), {"cu_seqlens": cu})

    def ref():
        for L in lens:  # varlen: one causal SDPA per sequence
            q, k, v = meta(1, Hq, L, D), meta(1, Hk, L, D), meta(1, Hk, L, D)
            k = k.repeat_interleave(Hq // Hk, dim=1)
            v = v.repeat_interleave(Hq // Hk, dim=1)
            F.scaled_dot_product_attention(q, k, v, is_causal=True)

    t = torch_flops(ref)
    full = sum(4 * Hq * D * L * L for L in lens)
    masked = sum(4 * Hq * D * L * (L - 1) // 2 for L in lens)
    check("flash_attention_prefill (torch)", t, full, 0,
          "flop_counter counts 4*Hq*D*L^2 per sequence: the full score "
          "matrix, causal mask ignored")
    check("flash_attention_prefill", t, matrix(w, "bf16"), masked,
          "atrex counts only the L*(L+1)/2 unmasked query-key pairs, so "
          "flop_counter exceeds it by the masked pairs 4*Hq*D*L*(L-1)/2")


def paged_attention_decode(args):
    ctx, Hq, Hk, D, BS, MB = [37, 64, 1], 8, 2, 64, 16, 4
    B = len(ctx)
    tables = [[3 * b + i for i in range(MB)] for b in range(B)]
    facts = {"context_lens": ctx, "block_tables": tables}
    w = atrex_work(args, "paged_attention_decode",
                   dict(B=B, Hq=Hq, Hk=Hk, D=D, NB=B * MB + 1, BS=BS, MB=MB), facts)

    def exact():
        for n in ctx:  # one SDPA per sequence over its own context
            q, k = meta(1, Hq, 1, D), meta(1, Hq, n, D)
            F.scaled_dot_product_attention(q, k, meta(1, Hq, n, D))

    def padded():  # all sequences padded to the block-table width
        L = MB * BS
        mask = torch.empty(B, 1, 1, L, dtype=torch.bool, device=META)
        F.scaled_dot_product_attention(meta(B, Hq, 1, D), meta(B, Hq, L, D),
                                       meta(B, Hq, L, D), attn_mask=mask)

    check("paged_attention_decode", torch_flops(exact), matrix(w, "bf16"), 0,
          "per-sequence attention over the context: both count "
          "4*Hq*D*sum(context_lens)")
    check("paged_attention_decode (padded)", torch_flops(padded), matrix(w, "bf16"),
          4 * Hq * D * (B * MB * BS - sum(ctx)),
          "a padded reference is counted at the block-table width MB*BS; "
          "atrex counts only the context_lens keys")


def moe(args, op, fp8):
    T, H, I, E, K = 4, 256, 128, 8, 2
    ids = [[(t * K + j) % E for j in range(K)] for t in range(T)]
    w = atrex_work(args, op, dict(T=T, H=H, E=E, I=I, K=K), {"topk_ids": ids})
    wt = FP8 if fp8 else BF16

    def ref():
        x = meta(T, H)
        w1, w2 = meta(E, 2 * I, H, dtype=wt), meta(E, H, I, dtype=wt)
        out = torch.zeros(T, H, device=META)
        for t in range(T):
            for j in range(K):
                e = ids[t][j]
                g = F.linear(x[t:t + 1].float(), w1[e].float())
                a = F.silu(g[:, :I]) * g[:, I:]
                out[t] += F.linear(a, w2[e].float())[0]
        return out

    t = torch_flops(ref)
    dtype = "f8e4m3" if fp8 else "bf16"
    check(op, t, matrix(w, dtype), 0,
          "both count 2*T*K*(2I*H + H*I) for the routed expert GEMMs")
    check(op + " (vector)", 0, vector(w), -vector(w),
          "flop_counter ignores silu_and_mul, quantization, block scaling and "
          "the weighted sum, which atrex counts as vector work")


def elementwise(args):
    cases = [
        ("rms_norm", dict(T=4, H=256), None,
         lambda: (lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))(
             meta(4, 256).float()) * meta(256).float()),
        ("fused_add_rms_norm", dict(T=4, H=256), None,
         lambda: (meta(4, 256) + meta(4, 256)).float().pow(2).mean(-1)),
        ("silu_and_mul", dict(T=4, D=128), None,
         lambda: (lambda x: F.silu(x[:, :128]) * x[:, 128:])(meta(4, 256).float())),
        ("rotary_embedding", dict(T=4, Hq=4, Hk=2, D=64, P=64), {"positions": [0, 1, 2, 3]},
         lambda: meta(4, 4, 32).float() * meta(4, 1, 32).float() - meta(4, 4, 32).float()),
        ("per_token_group_quant_fp8", dict(T=4, H=256), None,
         lambda: (meta(4, 2, 128).float() / meta(4, 2, 1).float()).clamp(-448, 448).to(FP8)),
        ("topk_softmax", dict(T=4, E=16, K=4, R=1), None,
         lambda: torch.topk(torch.softmax(meta(4, 16, dtype=torch.float32), -1), 4)),
    ]
    for op, dims, facts, fn in cases:
        w = atrex_work(args, op, dims, facts)
        check(op, torch_flops(fn), sum(w["flops"].get("matrix", {}).values()), 0,
              "flop_counter counts no elementwise or reduction work (0); atrex "
              f"counts {vector(w)} vector FLOPs and {sum(w['special'].values())} "
              "special functions")
        if vector(w) <= 0:
            failures.append(op + " (no vector work counted)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt", dest="atrex_opt", required=True,
                        help="the atrex-opt binary")
    parser.add_argument("--ops", required=True)
    args = parser.parse_args()
    gemm_bf16(args)
    fp8_blockscale_gemm(args)
    flash_attention_prefill(args)
    paged_attention_decode(args)
    moe(args, "fused_moe", fp8=False)
    moe(args, "fp8_blockscale_fused_moe", fp8=True)
    elementwise(args)
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all comparisons explained")
    return 0


if __name__ == "__main__":
    sys.exit(main())
