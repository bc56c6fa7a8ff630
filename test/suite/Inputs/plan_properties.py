"""Checks a plan written by atrex suite plan against its sealed bundle.

usage: plan_properties.py SEALED PLAN GPU VISIBILITY MAX_PER_OP
"""
import json
import os
import sys

sealed_path, plan_path, gpu, visibility, max_per_op = sys.argv[1:6]
max_per_op = int(max_per_op)
sealed = json.load(open(sealed_path))
weights = json.load(open(os.path.join(os.path.dirname(sealed_path),
                                      "weights.json")))["weights"]
plan = json.load(open(plan_path))
by_id = {p["id"]: p for p in sealed["problems"]}
for sub in plan["submissions"]:
    op = sub["operator"]
    ids = [p["id"] for p in sub["problems"]]
    pool = [p for p in sealed["problems"] if p["operator"] == op and
            (visibility == "all" or p["visibility"] == "public")]
    if max_per_op:
        pool.sort(key=lambda p: (-weights[p["id"]], p["id"]))
        pool = pool[:max_per_op]
    assert sorted(ids) == sorted(p["id"] for p in pool), (op, ids)
    if op == "rms_norm":
        print(f"rms_norm: {len(ids)} problems,",
              "the heaviest public ones" if max_per_op else "all of them")
    for p in sub["problems"]:
        s = by_id[p["id"]]
        assert p["floor_s"] == s["roofline"][gpu]["t_floor_s"]
        assert p["floor_s"] <= s["roofline"][gpu]["t_roofline_datasheet_s"]
        assert p["shape"] == s["shape"]
        assert p["extra"]["phase"] == s["phase"]
print("floors and shapes: ok")
print("seed", plan["settings"]["seed"])
