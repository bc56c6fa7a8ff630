#!/usr/bin/env bash
# Scores the H200 runs of this directory (the whole 476-problem suite, three
# sets) against the sealed bundle: naive, production, and production-lib with
# production's results standing in for the operators no production-library
# file covers (--fill). Run from the repository root after a build; writes
# score.md and tightness.md here, score.json into out/.
set -euo pipefail
N=bench/results/suite-2026-12-05
W=out/suite-2026-12-05
mkdir -p $W
for s in naive production production-lib; do zcat $N/suite-$s.jsonl.gz > $W/$s.jsonl; done
for f in md json; do
  o=$W/score.$f; [[ $f == md ]] && o=$N/score.md
  build/bin/atrex score bench/sets/bundle/sealed --public bench/sets/bundle/public --gpu H200 \
    --set naive=$W/naive.jsonl --set production=$W/production.jsonl \
    --set production-lib=$W/production-lib.jsonl --fill production-lib=production \
    --baseline production --baseline production-lib --format $f -o $o
done
python3 bench/sets/roofline-tightness.py $W/score.json > $N/tightness.md
echo "wrote $N/score.md $N/tightness.md ($W/score.json)"
