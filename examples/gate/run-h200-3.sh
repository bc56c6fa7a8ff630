#!/usr/bin/env bash
# Third H200 run: every GPU unit test of the runtime (GpuGate end to end
# included) after the -rdynamic fix, then the full examples plan. Writes
# under ${OUT:-out}.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; log="$OUT/log.txt"; B=build/runtime
{
  echo "== $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 >/dev/null && cmake --build $B -j16 2>&1 | grep -E 'error|FAILED'
  for t in AtrexRtSupportTests AtrexRtOpsTests AtrexRtGpuTests; do
    echo "== $t"
    $B/test/unit/$t --gtest_brief=1 2>&1 | tail -4
    echo "exit=$?"
  done
  G="$B/bin/atrex-gate --cache /tmp/atrex-cache"
  echo "== $G --plan examples/gate/plan.json --out $OUT/gate-examples.jsonl"
  $G --plan examples/gate/plan.json --out "$OUT/gate-examples.jsonl"
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -40 "$log"
