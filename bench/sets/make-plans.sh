#!/usr/bin/env bash
# Builds the release bundles of the default suite and the gate plans of the
# two submission sets (examples/sets/naive, examples/sets/production) that
# bench/sets/run-h200.sh runs on the H200:
#   bench/sets/bundle/{public,sealed}   (fixed salt and seed: reproducible)
#   bench/sets/plan-{naive,production}.json
# The plans cover the 6 heaviest problems of every operator (the same
# problems for both sets); the settings keep a unit to about a second.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${ATREX_BIN:-$ROOT/build/bin}
D=$ROOT/bench/sets
rm -rf "$D/bundle"
"$BIN/atrex-release" pack --suite "$ROOT/suites/atrex-serve/suite.json" \
  --public "$D/bundle/public" --sealed "$D/bundle/sealed" --gpu H200 \
  --salt 61747265782d736574732d323032362d31312d3239 --seed 20261129
for s in naive production; do
  "$BIN/atrex-suite" plan --set "$ROOT/examples/sets/$s" --sealed "$D/bundle/sealed/sealed.json" \
    --gpu H200 --max-per-op 6 --seed sealed -o "$D/plan-$s.json.tmp"
  python3 - "$D/plan-$s.json.tmp" "$D/plan-$s.json" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
p = json.load(open(src))
p["settings"].update({"arch": "sm_90", "problem_s": 40, "compile_s": 300, "trials": 3,
                      "warmup_ms": 30, "min_reps": 5, "max_reps": 100, "max_timed_s": 0.4,
                      "target_rel_err": 0.02, "recheck": 2, "private_network": False})
# sources relative to the plan's directory; the verdict each set must get
expected = "fallback" if os.path.basename(dst).startswith("plan-production") else "adopted"
for s in p["submissions"]:
    s["expected_verdict"] = expected
    s["source"] = os.path.relpath(os.path.join(os.path.dirname(src), s["source"]), os.path.dirname(dst)) \
        if not os.path.isabs(s["source"]) else os.path.relpath(s["source"], os.path.dirname(dst))
json.dump(p, open(dst, "w"), indent=1, sort_keys=True)
os.remove(src)
PY
done
echo "plans: $D/plan-naive.json $D/plan-production.json"
# plan-top1.json: both sets on the heaviest problem of every operator, in one
# plan (24 submissions compile together): what the last call of 2026-11-29 ran.
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
w = json.load(open(f"{d}/bundle/sealed/weights.json"))["weights"]
out = None
for s in ("production", "naive"):
    p = json.load(open(f"{d}/plan-{s}.json"))
    if out is None:
        out = {k: v for k, v in p.items() if k != "submissions"}
        out["submissions"] = []
    for sub in p["submissions"]:
        sub = dict(sub)
        sub["problems"] = sorted(sub["problems"], key=lambda q: -w[q["id"]])[:1]
        out["submissions"].append(sub)
json.dump(out, open(f"{d}/plan-top1.json", "w"), indent=1, sort_keys=True)
PY
# plan-both.json: both sets on the 6 heaviest problems of every operator in one
# plan, operator by operator (production then naive), so that a run cut by a
# time limit has both sets on the same operators; run it with --resume.
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
plans = {s: json.load(open(f"{d}/plan-{s}.json")) for s in ("production", "naive")}
out = {k: v for k, v in plans["production"].items() if k != "submissions"}
out["submissions"] = []
ops = sorted({s["operator"] for p in plans.values() for s in p["submissions"]})
for op in ops:   # an operator without a production file has the naive one alone
    for s in ("production", "naive"):
        out["submissions"] += [x for x in plans[s]["submissions"] if x["operator"] == op]
json.dump(out, open(f"{d}/plan-both.json", "w"), indent=1, sort_keys=True)
PY
# plan-suite.json: both sets on all problems of the suite, operator by
# operator as plan-both; for several GPUs run one shard per GPU into one results file
# (bench/sets/run-h200-s3.sh, step "suite"), with --resume.
python3 - "$D" "$BIN" "$ROOT" <<'PY'
import json, os, subprocess, sys
d, binary, root = sys.argv[1:4]
plans = {}
for s in ("production", "naive"):
    tmp = f"{d}/plan-suite-{s}.json.tmp"
    subprocess.run([f"{binary}/atrex-suite", "plan", "--set", f"{root}/examples/sets/{s}",
                    "--sealed", f"{d}/bundle/sealed/sealed.json", "--gpu", "H200", "--max-per-op", "0",
                    "--seed", "sealed", "-o", tmp], check=True)
    plans[s] = json.load(open(tmp))
    os.remove(tmp)
both = json.load(open(f"{d}/plan-both.json"))
out = {k: v for k, v in both.items() if k != "submissions"}   # the same settings as the sets runs
out["submissions"] = []
for sub in both["submissions"]:
    s = sub["name"].split("/")[0]
    full = next(x for x in plans[s]["submissions"] if x["operator"] == sub["operator"])
    out["submissions"].append(dict(sub, problems=full["problems"]))
json.dump(out, open(f"{d}/plan-suite.json", "w"), indent=1, sort_keys=True)
print("plan-suite.json:", sum(len(s["problems"]) for s in out["submissions"]), "units")
PY
# plan-suite-{naive,production}.json: each set alone on all problems (its own wall time).
python3 "$D/split-suite-plan.py"
