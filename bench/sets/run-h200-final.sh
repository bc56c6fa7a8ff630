#!/usr/bin/env bash
# One H200 call for the remaining evidence, in order of priority, each step
# under its own time limit so the call ends inside the device tool's 10 min:
#   1. both submission sets (bench/sets/plan-{production,naive}.json)
#   2. the timing comparison with ncu in the same session (NCU_SHARDS, default shard 1: silu_and_mul)
#   3. the gate examples when EXAMPLES=1 (examples/gate/plan.json)
#   4. HIP submissions when .debs/ carries libamdhip64-dev
# Writes under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  t0=$SECONDS
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release -DATREX_RT_BUILD_TESTS=OFF >/dev/null && \
    cmake --build $B -j16 --target atrex-gate atrex-gate-worker 2>&1 | grep -E 'error|FAILED'; echo "build: $((SECONDS - t0)) s"
  for s in production naive; do
    t0=$SECONDS; echo "== set $s"
    timeout ${SET_S:-170} $G --plan bench/sets/plan-$s.json --out "$OUT/gate-$s.jsonl"; echo "set $s: $((SECONDS - t0)) s"
  done
  echo "== timing: gate, then ncu on the same plan (attribution off under ncu)"
  timeout 50 $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing.jsonl"
  for i in ${NCU_SHARDS:-1}; do
    echo "== ncu shard $i/3" >>"$OUT/ncu.csv"
    ATREX_GATE_NO_ATTRIBUTION=1 timeout 45 ncu --target-processes all --clock-control none --cache-control all \
      -k regex:'rms_norm_kernel|silu_and_mul_kernel|gemm_bf16_kernel' --launch-skip 5 --launch-count 20 \
      --metrics gpu__time_duration.sum --csv \
      $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-under-ncu.jsonl" --shard $i/3 \
      >>"$OUT/ncu.csv" 2>/dev/null
  done
  if [ -n "${EXAMPLES:-}" ]; then
    t0=$SECONDS; echo "== examples"
    timeout 150 $G --plan examples/gate/plan.json --out "$OUT/gate-examples.jsonl"; echo "examples: $((SECONDS - t0)) s"
  fi
  if ls .debs/*.deb >/dev/null 2>&1 && [ -x examples/gate/run-h200-hip.sh ]; then
    echo "== HIP"; OUT="$OUT/hip" timeout 100 examples/gate/run-h200-hip.sh; ls "$OUT/hip"
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
grep -v '^\[' "$log" | tail -60
