#!/usr/bin/env bash
# The newcomer's first command: installs every Debian and PyPI package atrex
# needs, builds both halves, and runs the main job on the bundled default suite
# and example submission sets, writing everything under out/ (or $ATREX_OUT):
#   1. atrex-lint on examples/lint and on the two submission sets
#      (examples/sets/naive: hand-written kernels; examples/sets/production:
#      vendor/torch delegation), each verdict checked against EXPECTED;
#   2. the default suite (suites/atrex-serve): validity checks, rooflines on the
#      H200, the release bundles (public + sealed, hash commitment, leak check)
#      and their verification;
#   3. the trace-derived importance weights, regenerated from the committed
#      H200 model traces;
#   4. scoring of the committed H200 gate results of both sets (production as a
#      labelled baseline) into text, Markdown, JSON and HTML reports;
#   5. with a CUDA GPU: the gate on both sets (heaviest problem per operator)
#      and a report of that fresh run;
#   6. atrex eval: two example "external agents" (examples/eval/set-agent.sh
#      replaying the naive and the production set) over the public bundle,
#      linted, gated where a GPU is, and ranked in a leaderboard beside the
#      committed H200 results of the naive set.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${ATREX_OUT:-$ROOT/out}
[ -n "${ATREX_SKIP_INSTALL:-}" ] || scripts/install-deps.sh
scripts/build.sh
mkdir -p "$OUT"
BIN=$ROOT/build/bin
export PATH="$BIN:$PATH"

echo
echo "== 1. atrex-lint on examples/lint"
set +e
atrex-lint --mode=submission examples/lint/*.cu examples/lint/*.hip
rc=$?
set -e
echo "(atrex-lint exit status $rc: the worst verdict decides; 0 only if all are adopted)"
python3 test/lint/Inputs/check_verdicts.py examples/lint

for set in naive production; do
  echo
  echo "== 1. atrex-lint on examples/sets/$set -> $OUT/lint-$set.json"
  atrex-lint -j "$(nproc)" --mode=submission --format=json -o "$OUT/lint-$set.json" examples/sets/$set/*.cu || true
  python3 - "$OUT/lint-$set.json" "examples/sets/$set/EXPECTED" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
expected = dict(l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#"))
bad = [(os.path.basename(s["path"]), s["verdict"]) for s in report["submissions"]
       if expected.get(os.path.basename(s["path"])) != s["verdict"]]
for name, v in bad:
    print(f"  {name}: {v}, expected {expected.get(name)}")
print(f"  {len(report['submissions'])} files, {len(report['submissions']) - len(bad)} as expected")
sys.exit(1 if bad else 0)
PY
done

echo
echo "== 2. the default suite: validity, rooflines on the H200, release bundles"
atrex suite check --suite suites/atrex-serve/suite.json
# Into a file first: `| head` closes the pipe early and, under pipefail, the
# writer's SIGPIPE (exit 141) ended the whole job.
atrex-roofline --gpu H200 > "$OUT/roofline-h200.txt"
head -40 "$OUT/roofline-h200.txt"
rm -rf "$OUT/release"
atrex release pack --suite suites/atrex-serve/suite.json \
  --public "$OUT/release/public" --sealed "$OUT/release/sealed"
atrex release verify --public "$OUT/release/public" --sealed "$OUT/release/sealed"

echo
echo "== 3. importance weights from the committed H200 traces -> $OUT/weights-trace.json"
ATREX_SUMMARY="$OUT/weights-trace-summary.txt" scripts/regen-weights.sh "$OUT/weights-trace.json"

echo
echo "== 4. scores of the committed H200 results -> $OUT/report.{txt,md,json,html}"
# The 30-operator suite's H200 runs (bench/results/suite-2026-12-05: all 476 problems of the
# bundle), keyed by operator and shape to the bundle's ids (a no-op for this packing; a re-packed
# bundle keeps them usable). production-lib: the 17 operators with FlashInfer / CUTLASS /
# TensorRT-LLM kernels (examples/sets/production-lib), production's results for the other 13.
R=$OUT/results
mkdir -p "$R"
for s in naive production production-lib; do
  python3 bench/sets/rekey-results.py bench/sets/bundle/sealed/sealed.json \
    "bench/results/suite-2026-12-05/suite-$s.jsonl.gz" "$R/gate-$s.jsonl"
done
SCORE=(atrex score bench/sets/bundle/sealed --public bench/sets/bundle/public --gpu H200
       --set "naive=$R/gate-naive.jsonl" --lint "naive=$OUT/lint-naive.json"
       --set "production=$R/gate-production.jsonl" --lint "production=$OUT/lint-production.json"
       --set "production-lib=$R/gate-production-lib.jsonl" --fill production-lib=production
       --baseline production --baseline production-lib)
for fmt in txt md json html; do
  f=$fmt; [ $fmt = txt ] && f=text
  "${SCORE[@]}" --format "$f" -o "$OUT/report.$fmt"
done
head -12 "$OUT/report.txt"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -x build/runtime/bin/atrex-gate ]; then
  echo
  echo "== 5. GPU found: the gate on both sets (bench/sets/plan-top1.json) -> $OUT/gate-top1.jsonl"
  build/runtime/bin/atrex-gate --plan bench/sets/plan-top1.json --out "$OUT/gate-top1.jsonl"
  python3 - "$OUT/gate-top1.jsonl" "$OUT" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for s in ("naive", "production"):
    with open(f"{sys.argv[2]}/gate-top1-{s}.jsonl", "w") as f:
        for r in lines:
            if r["submission"]["name"].startswith(s + "/"):
                f.write(json.dumps(r) + "\n")
PY
  atrex score bench/sets/bundle/sealed --gpu H200 --baseline production \
    --set "naive=$OUT/gate-top1-naive.jsonl" --set "production=$OUT/gate-top1-production.jsonl" \
    --format html -o "$OUT/report-gpu.html"
  echo "fresh report: $OUT/report-gpu.html"
else
  echo
  echo "== 5. no CUDA GPU here: the gate's timed runs are skipped (the committed H200 results were scored above)"
  if [ -x build/runtime/bin/atrex-gate ]; then
    echo "   what the gate would need here (atrex-gate --check):"
    build/runtime/bin/atrex-gate --check | sed 's/^/   /' || true
  fi
fi
echo
echo "== 6. atrex eval: example agents over the public bundle -> $OUT/eval/leaderboard.{txt,md,json}"
rm -rf "$OUT/eval"
atrex eval run --public bench/sets/bundle/public --sealed bench/sets/bundle/sealed --out "$OUT/eval" \
  --agent "naive-replay=command:sh examples/eval/set-agent.sh examples/sets/naive" \
  --agent "torch-replay=command:sh examples/eval/set-agent.sh examples/sets/production" \
  --max-per-op 1 --measured-only --with "naive=$R/gate-naive.jsonl:$OUT/lint-naive.json"

echo
echo "done: reports in $OUT (open $OUT/report.html)"
