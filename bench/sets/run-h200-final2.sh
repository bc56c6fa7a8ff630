#!/usr/bin/env bash
# Last H200 call of the session (device time nearly spent): both submission
# sets on their heaviest problem per operator in ONE gate run (24 submissions
# compile together), silu_and_mul timed with and without the Sanitizer
# subscription (is attribution the source of the +4.5% over ncu?), and the
# HIP plan when .debs/ carries libamdhip64-dev. Writes under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  t0=$SECONDS
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release -DATREX_RT_BUILD_TESTS=OFF >/dev/null && \
    cmake --build $B -j16 --target atrex-gate atrex-gate-worker 2>&1 | grep -E 'error|FAILED'; echo "build: $((SECONDS - t0)) s"
  t0=$SECONDS; echo "== sets"
  timeout ${SET_S:-240} $G --plan bench/sets/plan-top1.json --out "$OUT/gate-sets.jsonl"; echo "sets: $((SECONDS - t0)) s"
  echo "== silu_and_mul timing: attribution on, then off"
  timeout 40 $G --plan examples/gate/plan-timing-silu.json --out "$OUT/gate-timing-silu.jsonl"
  ATREX_GATE_NO_ATTRIBUTION=1 timeout 30 $G --plan examples/gate/plan-timing-silu.json --out "$OUT/gate-timing-silu-noattr.jsonl"
  if ls .debs/*.deb >/dev/null 2>&1 && [ -x examples/gate/run-h200-hip.sh ]; then
    echo "== HIP"; OUT="$OUT/hip" timeout ${HIP_S:-90} examples/gate/run-h200-hip.sh; ls "$OUT/hip"
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -50 "$log"
