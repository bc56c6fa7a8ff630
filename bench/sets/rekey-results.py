#!/usr/bin/env python3
"""Re-keys atrex-gate results to the problem ids of a sealed bundle by
(operator, entry shape): for results gated against an earlier packing of the
same suite whose ids have since moved. Each result keeps everything it
recorded; only problem.id changes (the old id is kept as problem.gated_id).
A result whose (operator, shape) is no problem of the bundle is dropped and
counted on stderr.

    python3 bench/sets/rekey-results.py SEALED.json IN.jsonl[.gz] OUT.jsonl
"""
import gzip
import json
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
sealed, src, dst = sys.argv[1:]
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
        out.write(json.dumps(r, sort_keys=True) + "\n")
        kept += 1
print(f"rekey-results: {src}: {kept} re-keyed, {dropped} not in {sealed}", file=sys.stderr)
