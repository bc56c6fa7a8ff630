#!/usr/bin/env bash
# Fifth H200 run (2026-11-29, second session): the runtime's GPU unit tests,
# the example plan with the lint-aligned verdict precedence and the library
# naming of heap images, the timing comparison against ncu in the SAME
# session, and (when .debs/ carries libamdhip64-dev) the HIP plan.
# Writes under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  t0=$SECONDS
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release >/dev/null && \
    cmake --build $B -j16 2>&1 | grep -E 'error|FAILED'; echo "build: $((SECONDS - t0)) s"
  echo "== GPU unit tests"
  for t in $B/test/unit/*Tests; do echo "-- $t"; timeout 200 "$t" --gtest_brief=1 2>&1 | tail -6; done
  echo "== examples: $G --plan examples/gate/plan.json --out $OUT/gate-examples.jsonl"
  t0=$SECONDS; $G --plan examples/gate/plan.json --out "$OUT/gate-examples.jsonl"; echo "examples: $((SECONDS - t0)) s"
  echo "== timing: gate twice, then ncu on the same plan (attribution off under ncu)"
  for i in 1 2; do $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing.jsonl"; done
  for i in 0 1 2; do
    echo "== ncu shard $i/3" >>"$OUT/ncu.csv"
    ATREX_GATE_NO_ATTRIBUTION=1 timeout 100 ncu --target-processes all --clock-control none --cache-control all \
      -k regex:'rms_norm_kernel|silu_and_mul_kernel|gemm_bf16_kernel' --launch-skip 5 --launch-count 20 \
      --metrics gpu__time_duration.sum --csv \
      $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-under-ncu.jsonl" --shard $i/3 \
      >>"$OUT/ncu.csv" 2>/dev/null
  done
  if ls .debs/*.deb >/dev/null 2>&1 && [ -x examples/gate/run-h200-hip.sh ]; then
    echo "== HIP"; OUT="$OUT/hip" timeout 200 examples/gate/run-h200-hip.sh; ls "$OUT/hip"
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -60 "$log"
