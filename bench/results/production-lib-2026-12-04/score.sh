#!/usr/bin/env bash
# Scores the naive, production and production-lib sets over the whole default
# suite (327 problems) against the release bundle bench/sets/bundle (version 2:
# latency floor; measured ceilings of hw/gpus.json), and writes the roofline
# tightness table. Inputs: the whole-suite runs of 2026-12-02
# (bench/results/gate-2026-12-02b: naive call 3, production call 2) and this
# directory's production-lib runs (call 1 without silu_and_mul, whose launch
# was fixed and re-run in call 2); the production-lib set takes the production
# set's results for the 8 operators it has no file for. Run from the repository
# root after a build; the inputs are unpacked into out/ (git-ignored).
set -euo pipefail
R=bench/results/production-lib-2026-12-04
W=out/production-lib-score
mkdir -p $W
zcat bench/results/gate-2026-12-02b/call3/suite-naive.jsonl.gz > $W/naive.jsonl
zcat bench/results/gate-2026-12-02b/call2/suite-production.jsonl.gz > $W/production.jsonl
zcat $R/call1/suite-production-lib.jsonl.gz | grep -v '"operator": *"silu_and_mul"' > $W/production-lib.jsonl || true
zcat $R/call2/production-lib-silu.jsonl.gz >> $W/production-lib.jsonl
python3 - $W/production-lib.jsonl $W/production.jsonl $W/production-other-ops.jsonl <<'PY'
import json, sys
ops = {json.loads(l)["problem"]["operator"] for l in open(sys.argv[1])}
with open(sys.argv[3], "w") as out:
    for l in open(sys.argv[2]):
        if json.loads(l)["problem"]["operator"] not in ops:
            out.write(l)
PY
for f in md json html; do
  o=$W/score.$f; [[ $f == md ]] && o=$R/score.md
  build/bin/atrex score bench/sets/bundle/sealed --public bench/sets/bundle/public --gpu H200 \
    --set naive=$W/naive.jsonl --set production=$W/production.jsonl \
    --set production-lib=$W/production-lib.jsonl,$W/production-other-ops.jsonl \
    --baseline production --baseline production-lib --format $f -o $o
done
python3 bench/sets/roofline-tightness.py $W/score.json > $R/tightness.md
echo "wrote $R/score.md $R/tightness.md ($W/score.{json,html})"
