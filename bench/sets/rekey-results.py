#!/usr/bin/env python3
"""Re-keys atrex-gate results to the problem ids of a sealed bundle by
(operator, entry shape): for results gated against an earlier packing of the
same suite whose ids have since moved. Each result keeps everything it
recorded; only problem.id changes (the old id is kept as problem.gated_id).
A result whose (operator, shape) is no problem of the bundle is dropped and
counted on stderr. With --plan PLAN.json the unit index also becomes that of
(submission, problem) in PLAN (its submissions' problems in order, as
atrex-gate numbers units; the old index is kept as gated_unit), so that
`atrex-gate --resume --plan PLAN` skips the units already gated.

    python3 bench/sets/rekey-results.py [--plan PLAN.json] SEALED.json IN.jsonl[.gz] OUT.jsonl
"""
import gzip
import json
import sys

args = sys.argv[1:]
plan = None
if args[:1] == ["--plan"] and len(args) > 1:
    plan, args = args[1], args[2:]
if len(args) != 3:
    sys.exit(__doc__)
sealed, src, dst = args
units = {}
if plan:
    for s in json.load(open(plan))["submissions"]:
        for p in s["problems"]:
            units[(s["name"], p["id"])] = len(units)
key = lambda op, shape: op + " " + json.dumps(shape, sort_keys=True)
ids = {}
for p in json.load(open(sealed))["problems"]:
    k = key(p["operator"], p["shape"])
    if k in ids:
        sys.exit(f"rekey-results: {sealed}: {k} is two problems ({ids[k]}, {p['id']})")
    ids[k] = p["id"]
opener = gzip.open if src.endswith(".gz") else open
kept = dropped = 0
with opener(src, "rt") as f, open(dst, "w") as out:
    for n, line in enumerate(f, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            k = key(r["problem"]["operator"], r["problem"]["shape"])
        except (ValueError, KeyError) as e:
            sys.exit(f"rekey-results: {src}:{n}: not a gate result ({e})")
        if k not in ids:
            dropped += 1
            continue
        r["problem"]["gated_id"] = r["problem"]["id"]
        r["problem"]["id"] = ids[k]
        if plan:
            u = units.get((r["submission"]["name"], ids[k]))
            if u is None:
                sys.exit(f"rekey-results: {src}:{n}: {r['submission']['name']} {ids[k]} is no unit of {plan}")
            r["gated_unit"] = r.get("unit")
            r["unit"] = u
        out.write(json.dumps(r, sort_keys=True) + "\n")
        kept += 1
print(f"rekey-results: {src}: {kept} re-keyed, {dropped} not in {sealed}", file=sys.stderr)
