#!/usr/bin/env bash
# Fourth H200 run: the timing problems of run 1 after the L2 flush became a
# read sweep (no dirty lines left for the timed kernel). Compare with run 1's
# ncu medians (bench/results/gate-2026-11-29/run1). Writes under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DATREX_RT_BUILD_TESTS=OFF >/dev/null && cmake --build $B -j16 --target atrex-gate atrex-gate-worker 2>&1 | grep -E 'error|FAILED'
  G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
  for i in 1 2; do
    echo "== $G --plan examples/gate/plan-timing.json --out $OUT/gate-timing-$i.jsonl"
    $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-$i.jsonl"
  done
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -20 "$log"
