#!/usr/bin/env bash
# Builds runtime/ and runs the gate evidence on a GPU machine (the H200 of the
# device tool). Writes results and logs under ${OUT:-out}.
#   examples/gate/run-h200.sh [examples|overhead|timing|all]
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
what=${1:-all}
B=build/runtime
log="$OUT/log.txt"
{
  echo "== $(date -u +%FT%TZ) $(hostname)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release >/dev/null && \
    cmake --build $B -j16 2>&1 | grep -E 'error|warning: unused|FAILED' ; echo "build rc=${PIPESTATUS[0]}"
  ls $B/bin
} >>"$log" 2>&1
G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
if [[ $what == tests ]]; then
  { for t in $B/test/unit/*Tests; do [ -x "$t" ] && "$t" --gtest_brief=1 2>&1 | tail -4; done; } >>"$log" 2>&1
fi
if [[ $what == all || $what == examples ]]; then
  echo "== examples: $G --plan examples/gate/plan.json --out $OUT/gate-examples.jsonl" >>"$log"
  /usr/bin/time -f "wall %e s" $G --plan examples/gate/plan.json --out "$OUT/gate-examples.jsonl" >>"$log" 2>&1
fi
if [[ $what == all || $what == overhead ]]; then
  echo "== overhead: $G --plan examples/gate/plan-overhead.json --out $OUT/gate-overhead.jsonl" >>"$log"
  $G --plan examples/gate/plan-overhead.json --out /tmp/warm.jsonl --shard 0/10 >/dev/null 2>&1  # compile into the cache
  /usr/bin/time -f "wall %e s" $G --plan examples/gate/plan-overhead.json --out "$OUT/gate-overhead.jsonl" >>"$log" 2>&1
fi
if [[ $what == all || $what == timing ]]; then
  echo "== timing: $G --plan examples/gate/plan-timing.json --out $OUT/gate-timing.jsonl" >>"$log"
  $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing.jsonl" >>"$log" 2>&1
  for i in 0 1 2; do
    echo "== ncu shard $i/3" >>"$OUT/ncu.csv"
    ATREX_GATE_NO_ATTRIBUTION=1 timeout 150 ncu --target-processes all --clock-control none --cache-control all \
      -k regex:'rms_norm_kernel|silu_and_mul_kernel|gemm_bf16_kernel' --launch-skip 5 --launch-count 20 \
      --metrics gpu__time_duration.sum --csv \
      $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-under-ncu.jsonl" --shard $i/3 \
      >>"$OUT/ncu.csv" 2>>"$log"
  done
fi
echo "== done $(date -u +%FT%TZ)" >>"$log"
tail -40 "$log"
