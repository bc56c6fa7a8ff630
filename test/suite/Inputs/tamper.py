"""Writes a copy of a suite.json (or sealed.json) with one problem broken.

usage: tamper.py IN OUT MODE; prints "TAMPERED <id>".
"""
import json
import sys

src, dst, mode = sys.argv[1:4]
suite = json.load(open(src))
problems = suite["problems"]


def first(op):
    return next(p for p in problems if p["operator"] == op)


if mode == "zero":
    p = first("rms_norm")
    p["shape"]["T"] = 0
    p["definition_shape"]["T"] = 0
elif mode == "topk":
    p = first("topk_softmax")
    p["shape"]["K"] = p["shape"]["E"] + 1
    p["definition_shape"]["K"] = p["shape"]["K"]
elif mode == "facts":
    p = first("paged_attention_decode")
    p["facts"]["context_lens"][0] -= 1
elif mode == "param":
    p = first("gemm_bf16")
    del p["definition_shape"]["K"]
elif mode == "entry":
    p = first("paged_attention_decode")
    p["shape"]["L"] += 16
elif mode == "divisible":
    p = first("fp8_blockscale_gemm")
    p["shape"]["N"] += 64
    p["definition_shape"]["N"] += 64
elif mode == "weight":
    p = problems[0]
    p["weight"] += 0.5
else:
    sys.exit("unknown mode " + mode)
print("TAMPERED", p["id"])
json.dump(suite, open(dst, "w"), indent=2)
