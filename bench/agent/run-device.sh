#!/usr/bin/env bash
# Runs atrex agent loops with the search backend on the GPU machine, one per
# LOOPS entry (name:problem:start-file), all at once: their compiles overlap,
# their gate workers take turns on the GPU (ATREX_GATE_DEVICE_LOCK). Needs the
# pack of bench/agent/pack.sh (carry .agentpack/pack.tar.xz) and .debs
# (scripts/fetch-device-debs.sh) for the runtime build. A run directory that
# has a trail (kept in /tmp/agent-runs while the machine stays warm, else
# unpacked from RUNS_TGZ) is resumed. Results: $OUT/runs.tgz (trails,
# candidates, iteration files; no gate cache), $OUT/log.txt, one report per loop.
# PROFILE=1 adds --profile (ncu on each passing candidate, the diagnosis).
#   LOOPS="rms:p0105:examples/sets/naive/rms_norm.cu" ITERATIONS=12 WALL_S=400 \
#     COMMIT=abc OUT=$OUT bash bench/agent/run-device.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
log="$OUT/log.txt"
A=/tmp/ap R=/tmp/agent-runs
{
  echo "== $(date -u +%FT%TZ) loops: $LOOPS; commit ${COMMIT:-unknown}"
  STEPS=build OUT=$OUT/build COMMIT=${COMMIT:-unknown} bash bench/gate/run-h200-gatefast.sh >/dev/null 2>&1
  cat $OUT/build/log.txt | grep -E "^build" ; rm -rf $OUT/build
  if [[ ! -x $A/bin/atrex-agent ]]; then
    mkdir -p $A && xz -dc .agentpack/pack.tar.xz | tar -C $A -xf -
  fi
  mkdir -p $R
  if [[ -n ${RUNS_TGZ:-} && -f $RUNS_TGZ && -z "$(ls -A $R)" ]]; then tar -C $R -xzf "$RUNS_TGZ"; fi
  export ATREX_GATE_DEVICE_LOCK=/tmp/atrex-gpu.lock
  settings=${GATE_SETTINGS:-'{"trials": 3, "max_timed_s": 1.0, "warmup_ms": 50}'}
  pids=()
  for l in $LOOPS; do
    IFS=: read -r name prob start <<<"$l"
    args=(run --run-dir $R/$name --backend search --templates kb/templates
          --lint-cache $A/lint-cache --gate /tmp/b/bin/atrex-gate
          --iterations ${ITERATIONS:-12} --wall-seconds ${WALL_S:-400}
          --dropout-after ${DROPOUT_AFTER:-3} --gate-settings "$settings")
    # PROFILE=1: every passing candidate under Nsight Compute (docs/agent.md).
    [[ -n ${PROFILE:-} ]] && args+=(--profile)
    if [[ -f $R/$name/trail.jsonl ]]; then args+=(--resume); else args+=(--problem $prob --start $start); fi
    $A/bin/atrex-agent "${args[@]}" > $R/$name.log 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p; echo "loop pid $p: rc $?"; done
  for l in $LOOPS; do
    IFS=: read -r name prob start <<<"$l"
    echo "== $name"; tail -3 $R/$name.log
    $A/bin/atrex-agent report $R/$name/trail.jsonl --format md > $OUT/report-$name.md 2>&1
  done
  tar -C $R --exclude=gate-cache -czf $OUT/runs.tgz .
  ls -la $OUT
} 2>&1 | tee -a "$log"
