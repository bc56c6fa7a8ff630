#!/usr/bin/env bash
# Runs one submission set's gate plan on the H200 (device tool):
#   OUT=$OUT bench/sets/run-h200.sh naive|production
# Writes $OUT/gate-<set>.jsonl and $OUT/log-<set>.txt.
set -uo pipefail
set_name=${1:?naive or production}
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log-$set_name.txt"; B=build/runtime
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  t0=$SECONDS
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release -DATREX_RT_BUILD_TESTS=OFF >/dev/null && \
    cmake --build $B -j16 --target atrex-gate atrex-gate-worker 2>&1 | grep -E 'error|FAILED'; echo "build: $((SECONDS - t0)) s"
  t0=$SECONDS
  $B/bin/atrex-gate --cache /tmp/atrex-cache --plan bench/sets/plan-$set_name.json --out "$OUT/gate-$set_name.jsonl"
  echo "gate: $((SECONDS - t0)) s"
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -25 "$log"
