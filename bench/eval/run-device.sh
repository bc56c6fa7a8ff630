#!/usr/bin/env bash
# GPU-machine half of an `atrex eval` whose agents were generated and linted
# here (the GPU machine has no LLVM): gates each EVAL/agents/NAME/plan.json
# (written by `atrex suite plan`, sources relative to the plan) with the
# runtime built from this tree, and, for the agent issue's profiler check,
# runs Nsight Compute through `atrex agent profile` on PROFILES
# (name:problem:source ...) and the search loop with --profile on LOOPS
# (bench/agent/run-device.sh's format; needs its pack). Results:
# $OUT/log.txt and $OUT/results.tgz (EVAL/agents/*/results.jsonl, the
# profile directories' JSON/CSV, loop trails); the results are scored back
# here with `atrex eval score --results NAME=FILE`.
#   EVAL=.evalpack/eval PROFILES="rms:p0105:examples/sets/naive/rms_norm.cu" \
#     COMMIT=abc OUT=$OUT bash bench/eval/run-device.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
log="$OUT/log.txt"; B=/tmp/b; A=/tmp/ap; R=/tmp/eval-results
EVAL=${EVAL:-.evalpack/eval}
# The profiled problem's gate run: short (ncu's replay is what is measured).
pgs=${PROFILE_GATE_SETTINGS:-'{"trials": 1, "max_timed_s": 0.2}'}
{
  echo "== $(date -u +%FT%TZ) eval: $EVAL; profiles: ${PROFILES:-}; loops: ${LOOPS:-}; commit ${COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  STEPS=build OUT=$OUT/build COMMIT=${COMMIT:-unknown} bash bench/gate/run-h200-gatefast.sh >/dev/null 2>&1
  grep -E "^build" $OUT/build/log.txt; rm -rf $OUT/build
  rm -rf $R; mkdir -p $R
  for plan in "$EVAL"/agents/*/plan.json; do
    [[ -f $plan ]] || continue
    name=$(basename "$(dirname "$plan")"); t0=$SECONDS
    echo "== gate $name $(date -u +%T)"
    timeout ${GATE_S:-240} $B/bin/atrex-gate --quiet --plan "$plan" --out $R/$name.jsonl \
      --cache /tmp/gate-cache-$name 2>$R/$name.err
    echo "gate $name: rc $?, $((SECONDS - t0)) s"; tail -3 $R/$name.err
    cp $R/$name.jsonl "$OUT/" # kept even if a later step runs out of time
    python3 - $R/$name.jsonl <<'PY'
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    sub = r["submission"]
    c[(sub.get("name", "?") if isinstance(sub, dict) else sub, r["status"], r["verdict"])] += 1
for k, n in sorted(c.items()):
    print("  ", *k, n)
PY
  done
  if [[ -n ${PROFILES:-} || -n ${LOOPS:-} ]]; then
    if [[ ! -x $A/bin/atrex-agent ]]; then
      mkdir -p $A && xz -dc .agentpack/pack.tar.xz | tar -C $A -xf -
    fi
    ncu --version | tail -1
    # The default metric set against what this ncu knows on this GPU.
    ncu --query-metrics --csv 2>/dev/null | cut -d, -f1 | tr -d '"' > $R/ncu-metrics.txt
    echo "ncu knows $(wc -l < $R/ncu-metrics.txt) base metrics"
  fi
  for p in ${PROFILES:-}; do
    IFS=: read -r name prob src <<<"$p"; t0=$SECONDS
    echo "== profile $name ($prob, $src) $(date -u +%T)"
    timeout ${PROFILE_S:-240} $A/bin/atrex-agent profile --problem $prob --source $src \
      --gate $B/bin/atrex-gate --dir $R/profile-$name --format text \
      --gate-settings "$pgs" \
      > $R/profile-$name.txt 2>&1
    echo "profile $name: rc $?, $((SECONDS - t0)) s"; head -60 $R/profile-$name.txt
    tar -C $R --exclude='gate-cache*' -czf "$OUT/profile-$name.tgz" profile-$name profile-$name.txt
  done
  if [[ -n ${LOOPS:-} ]]; then
    PROFILE=1 OUT=$R/loops bash bench/agent/run-device.sh >/dev/null 2>&1
    cat $R/loops/log.txt
  fi
  tar -C $R --exclude='gate-cache*' -czf $OUT/results.tgz .
  ls -la $OUT
} 2>&1 | tee -a "$log"
