#!/usr/bin/env bash
# Second H200 run: GPU unit tests, the side-stream example after the graph-path
# fix (with rms_norm_naive on the same shape for comparison), and the timing
# problems without input rotation. Writes under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 >/dev/null && cmake --build $B -j16 2>&1 | grep -E 'error|FAILED'
  echo "== unit tests"
  $B/test/unit/AtrexRtSupportTests --gtest_brief=1 2>&1 | tail -3
  $B/test/unit/AtrexRtOpsTests --gtest_brief=1 2>&1 | tail -3
  $B/test/unit/AtrexRtGpuTests --gtest_brief=1 --gtest_filter=-GpuGate.* 2>&1 | tail -3
  G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
  echo "== $G --plan examples/gate/plan-side-stream.json --out $OUT/gate-side-stream.jsonl"
  $G --plan examples/gate/plan-side-stream.json --out "$OUT/gate-side-stream.jsonl"
  echo "== $G --plan examples/gate/plan-timing-norotate.json --out $OUT/gate-timing-norotate.jsonl"
  $G --plan examples/gate/plan-timing-norotate.json --out "$OUT/gate-timing-norotate.jsonl"
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -30 "$log"
