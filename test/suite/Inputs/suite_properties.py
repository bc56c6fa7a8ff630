"""Asserts the properties docs/suite.md promises of a suite.json."""
import collections
import json
import math
import re
import sys

suite = json.load(open(sys.argv[1]))
problems = suite["problems"]
assert len(problems) >= 440, len(problems)
print("problems >= 440: ok")
ops = {p["operator"] for p in problems}
print("operators:", len(ops))
ids = [p["id"] for p in problems]
assert all(re.fullmatch(r"p\d{4}", i) for i in ids) and len(set(ids)) == len(ids)
print("ids opaque and unique: ok")
phases = collections.Counter(p["phase"] for p in problems)
assert phases["decode"] > 0 and phases["prefill"] > 0
print("both phases: ok")
groups = collections.defaultdict(list)
for p in problems:
    groups[(p["operator"], p["phase"])].append(p["visibility"] == "public")
for key, vis in groups.items():
    assert sum(vis) == math.ceil(len(vis) * 0.34 - 1e-9), (key, vis)
print("visible about a third per operator and phase: ok")
assert abs(sum(p["weight"] for p in problems) - 1) < 1e-9
assert all(p["weight"] > 0 for p in problems)
print("weights sum to 1: ok")
# Data-dependent operators are those with a facts model (operators[].facts).
modelled = {o["name"]: o["facts"] for o in suite["operators"] if o["facts"]}
for p in problems:
    if p["operator"] in modelled:
        assert p["facts"] and set(p["facts"]) == set(p["floor_facts"]), p["id"]
    else:
        assert p["facts"] is None, p["id"]
    if p["operator"] == "flash_attention_prefill":
        cu = p["facts"]["cu_seqlens"]
        assert cu[0] == 0 and cu[-1] == p["shape"]["T"] and len(cu) == p["shape"]["B"] + 1
        assert p["shape"] == p["definition_shape"]
    if p["operator"] == "paged_attention_decode":
        lens = p["facts"]["context_lens"]
        L = p["shape"]["L"]
        assert lens[0] == L and all(1 <= x <= L for x in lens)
        d = p["definition_shape"]
        assert d["NB"] == d["B"] * d["MB"] + 1 and L == d["MB"] * d["BS"]
print("facts for data-dependent operators: ok")
for p in problems:
    prov = p["provenance"]
    assert prov["model"] and prov["application"] and prov["upstream_kernel"]
    assert abs(sum(s["weight"] for s in prov["sources"]) - p["weight"]) < 1e-12
print("provenance: ok")
models = {s["model"] for p in problems for s in p["provenance"]["sources"]}
assert len(models) >= 20, sorted(models)
print("model configurations >= 20: ok")
