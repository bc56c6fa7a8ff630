#!/usr/bin/env bash
# Scores the naive, production and production-lib sets over the whole default
# suite (476 problems, bench/sets/bundle) from this directory's H200 runs and
# writes the roofline tightness table. suite-naive.jsonl.gz and
# suite-production.jsonl.gz hold every problem (the runs of
# bench/results/suite-2026-12-04, re-keyed with --plan, resumed here);
# the production-lib set (call 2; call 3's units in production-lib-rerun
# replace those of call 2) has files for 6 operators and takes the production
# set's results for the problems of the other 24 (atrex score --fill). Run from the repository root after a build;
# the inputs are unpacked into out/ (git-ignored).
set -euo pipefail
R=bench/results/suite-2026-12-04b
W=out/suite-2026-12-04b
mkdir -p $W
for s in naive production production-lib; do zcat $R/suite-$s.jsonl.gz > $W/$s.jsonl; done
if [[ -f $R/production-lib-rerun.jsonl.gz ]]; then
  # units re-run after a fix (README.md) replace the first run's results
  zcat $R/production-lib-rerun.jsonl.gz > $W/rerun.jsonl
  python3 - $W/production-lib.jsonl $W/rerun.jsonl <<'PY'
import json, sys
key = lambda r: (r["submission"]["name"], r["problem"]["id"])
new = [json.loads(l) for l in open(sys.argv[2])]
again = {key(r) for r in new}
old = [json.loads(l) for l in open(sys.argv[1])]
with open(sys.argv[1], "w") as out:
    for r in [r for r in old if key(r) not in again] + new:
        out.write(json.dumps(r, sort_keys=True) + "\n")
PY
fi
for f in md json; do
  o=$W/score.$f; [[ $f == md ]] && o=$R/score.md
  build/bin/atrex score bench/sets/bundle/sealed --public bench/sets/bundle/public --gpu H200 \
    --set naive=$W/naive.jsonl --set production=$W/production.jsonl \
    --set production-lib=$W/production-lib.jsonl --fill production-lib=production \
    --baseline production --baseline production-lib --format $f -o $o
done
python3 bench/sets/roofline-tightness.py $W/score.json > $R/tightness.md
echo "wrote $R/score.md $R/tightness.md ($W/score.json)"
