#!/usr/bin/env bash
# H200 runs for issue 15 (2026-12-02). Builds runtime/ of the tree in SNAP
# (default: this checkout; the session carried a snapshot of the gate's files
# in .gate-snap/ because other work in the shared checkout did not build) and
# runs the steps in STEPS, each bounded so the call ends inside DEADLINE_S.
#
#   STEPS="build probe gputests timing" DEADLINE_S=500 bash bench/gate/run-h200-issue15.sh
#   STEPS="build sets" ...            both bundled sets on all 327 problems (plan-suite.json)
#   STEPS="build ncu" ...             timing against ncu
#
# build     runtime/ with tests (Ninja, -j16) into /tmp/b
# probe     atrex-gate --check; compute-sanitizer's --padding option
# gputests  AtrexRtGpuTests (TEST_TMPDIR=/tmp/gt); the plans' results copied to $OUT
# timing    examples/gate/plan-timing.json (rms_norm, silu_and_mul, gemm_bf16) as the gate runs it
# timing-dw the same with ATREX_GATE_DEVICE_WIDE=1 (CUPTI spans in every clean run)
# sets      bench/sets/plan-suite.json (654 units), wall time; --resume across calls
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
SNAP=${SNAP:-.}; cd "$SNAP"
log="$OUT/log.txt"; B=/tmp/b; G="$B/bin/atrex-gate --cache /tmp/gate-cache"
DEADLINE_S=${DEADLINE_S:-500}
left() { echo $((DEADLINE_S - SECONDS - ${1:-10})); }
run() { local lim=$1; shift; local l; l=$(left); ((l < lim)) && lim=$l
  if ((lim < 5)); then echo "-- skipped (deadline): $*"; return 124; fi
  timeout "$lim" "$@"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
{
  echo "== $(date -u +%FT%TZ) steps: $STEPS; deadline ${DEADLINE_S} s; tree $(pwd)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  if has build; then
    t0=$SECONDS
    cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      cmake --build $B -j16 2>&1 | grep -E 'error|FAILED|warning: unused'
    echo "build: $((SECONDS - t0)) s"
  fi
  if has probe; then
    run 120 $B/bin/atrex-gate --check
    cs=$(dirname "$(command -v nvcc)")/compute-sanitizer
    echo "compute-sanitizer --help, padding:"; run 30 "$cs" --help | grep -n -A2 -i padding
  fi
  if has gputests; then
    echo "== GPU unit tests $(date -u +%T)"; t0=$SECONDS
    rm -rf /tmp/gt; mkdir -p /tmp/gt
    TEST_TMPDIR=/tmp/gt run ${GPUTESTS_S:-330} $B/test/unit/AtrexRtGpuTests --gtest_brief=1 >"$OUT/gpu-tests.txt" 2>&1
    echo "gputests: rc $?, $((SECONDS - t0)) s"; grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/gpu-tests.txt"
    for n in side-destroyed integrity memcheck; do
      [[ -f /tmp/gt/atrex-gpu-$n/r.jsonl ]] && cp /tmp/gt/atrex-gpu-$n/r.jsonl "$OUT/gate-$n.jsonl"
    done
  fi
  if has timing; then
    echo "== timing $(date -u +%T)"; t0=$SECONDS
    run 200 $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing.jsonl"
    echo "timing: rc $?, $((SECONDS - t0)) s"
  fi
  if has timing-dw; then
    # The same plan with CUPTI spans forced on in the clean runs: their cost.
    echo "== timing, device-wide spans forced $(date -u +%T)"; t0=$SECONDS
    ATREX_GATE_DEVICE_WIDE=1 run 200 $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-dw.jsonl"
    echo "timing-dw: rc $?, $((SECONDS - t0)) s"
  fi
  if has sets; then
    echo "== sets $(date -u +%T)"; t0=$SECONDS
    run ${SETS_S:-540} $G --jobs 16 --resume --plan bench/sets/plan-suite.json --out /tmp/gate-suite.jsonl
    echo "sets: rc $?, $((SECONDS - t0)) s, $(wc -l </tmp/gate-suite.jsonl) results"
    cp /tmp/gate-suite.jsonl "$OUT/gate-suite.jsonl"
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
grep -v '^\[' "$log" | tail -60
