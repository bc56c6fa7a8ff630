#!/usr/bin/env bash
# H200 runs of session 3 (2026-11-29). One script, several calls of the device
# tool; STEPS picks what a call does, DEADLINE_S bounds the whole call (every
# step gets what is left, minus a margin), so a call ends inside the tool's
# 10 minutes and what finished comes back under $OUT.
#
#   STEPS="build timing gputests hip" DEADLINE_S=560 bash bench/sets/run-h200-s3.sh   (carry .debs)
#   STEPS="build sets examples"       DEADLINE_S=570 bash bench/sets/run-h200-s3.sh   (again until done)
#   STEPS="build clean ncu gputests overhead validate examples" DEADLINE_S=560 bash bench/sets/run-h200-s3.sh
#                                     (next: the clean timing run on a GPU; keep $OUT to <= 8 files)
#
# build     runtime/ with the tests; with .debs/ also HIP's patched NVIDIA headers
# timing    plan-timing.json (rms_norm, silu_and_mul, gemm_bf16) four ways: attribution on/off x
#           gap sleep 1e5/1e6 cycles
# ncu       ncu gpu__time_duration on rms_norm and silu_and_mul (the same plan, attribution off)
# clean     plan-timing.json as the gate now runs it (clean timing run on): with the ncu step,
#           the timing-accuracy evidence of the clean timing path (NCU_SHARDS="0 1 2" adds the
#           GEMM, shard 2)
# overhead  plan-overhead.json (one submission, 10 shapes) after a compiling run: wall time
# gputests  AtrexRtGpuTests (CUDA references vs CPU, the end-to-end gate, max_seqlen per trial)
# (call 4 also ran an "audit" step, the experiment with the since removed timed_attribution
#  setting: see bench/results/gate-2026-11-29/run6/COMMAND.md, commit 2966606)
# hip       examples/gate/plan-hip.json (HIP submissions through nvcc)
# sets      bench/sets/plan-both.json (both submission sets, 142 units) with --resume: the
#           results file lives in build/s3/ (kept while the machine stays warm); RESUME_FROM
#           (a results file in the working tree) seeds it when the machine is fresh
# suite     bench/sets/plan-suite.json (both sets, all 327 problems, 654 units), one shard per GPU
# validate  atrex-ref --validate on all 327 problems of the sealed bundle, on the GPU
#           (VALIDATE_IDS="p0325 p0326" validates only those)
# examples  examples/gate/plan.json
# memcheck  examples/gate/plan-memcheck.json (settings.memcheck: the honest kernel and the
#           out-of-bounds read; not yet run as of the fourth session of 2026-11-29)
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
log="$OUT/log.txt"; B=build/runtime; W=build/s3; mkdir -p $W
G="$B/bin/atrex-gate --cache $PWD/build/gate-cache"
DEADLINE_S=${DEADLINE_S:-560}
left() { echo $((DEADLINE_S - SECONDS - ${1:-10})); }
run() { # run LIMIT_S cmd...: at most LIMIT_S, never past the deadline
  local lim=$1; shift; local l; l=$(left); ((l < lim)) && lim=$l
  if ((lim < 5)); then echo "-- skipped (deadline): $*"; return 124; fi
  timeout "$lim" "$@"
}
has() { [[ " $STEPS " == *" $1 "* ]]; }
{
  echo "== $(date -u +%FT%TZ) steps: $STEPS; deadline ${DEADLINE_S} s"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  if has build; then
    t0=$SECONDS; hipdef=()
    deb=$(ls -1 .debs/libamdhip64-dev_*_amd64.deb 2>/dev/null | tail -1)
    if [[ -n $deb && ! -d build/hip-deb/usr/include ]]; then
      mkdir -p build/hip-deb && (command -v dpkg-deb >/dev/null && dpkg-deb -x "$deb" build/hip-deb ||
        python3 -c "
import io,sys,tarfile
d=open(sys.argv[1],'rb').read(); p=8
while p+60<=len(d):
    n=d[p:p+16].decode().strip().rstrip('/'); s=int(d[p+48:p+58].decode().strip())
    if n.startswith('data.tar'): tarfile.open(fileobj=io.BytesIO(d[p+60:p+60+s])).extractall(sys.argv[2]); break
    p+=60+s+(s&1)" "$deb" build/hip-deb)
    fi
    [[ -d build/hip-deb/usr/include ]] && hipdef=(-DATREX_HIP_SOURCE_INCLUDE_DIR=$PWD/build/hip-deb/usr/include)
    rtinc=$(scripts/device-headers.sh build/rt-debs) # nlohmann-json, CLI11 from .debs/ if absent
    cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release "${hipdef[@]}" $rtinc >/dev/null &&
      cmake --build $B -j16 2>&1 | grep -E 'error|FAILED'
    echo "build: $((SECONDS - t0)) s (HIP: ${hipdef[*]:-none})"
  fi
  if has timing; then
    echo "== timing (gate) $(date -u +%T)"
    for v in "attr 100000" "noattr 100000" "attr 1000000" "noattr 1000000"; do
      set -- $v
      python3 - "$2" "$W/plan-timing-$1-$2.json" <<'PY'
import json, os, sys
p = json.load(open("examples/gate/plan-timing.json"))
p["settings"]["gap_sleep_cycles"] = int(sys.argv[1])
for s in p["submissions"]:
    s["source"] = os.path.abspath(os.path.join("examples/gate", s["source"]))
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
      if [[ $1 == noattr ]]; then export ATREX_GATE_NO_ATTRIBUTION=1; else unset ATREX_GATE_NO_ATTRIBUTION; fi
      t0=$SECONDS
      run 150 $G --plan "$W/plan-timing-$1-$2.json" --out "$OUT/gate-timing-$1-$2.jsonl" 2>&1 | grep -v '^atrex-gate: compiled'
      echo "timing $1 $2: $((SECONDS - t0)) s"
    done
    unset ATREX_GATE_NO_ATTRIBUTION
  fi
  if has ncu; then
    echo "== timing (ncu) $(date -u +%T)"
    python3 - "$W/plan-timing-noattr-100000.json" <<'PY'
import json, os, sys
p = json.load(open("examples/gate/plan-timing.json"))
for s in p["submissions"]:
    s["source"] = os.path.abspath(os.path.join("examples/gate", s["source"]))
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
    # Compile first (outside ncu): on a fresh machine the compile under ncu used up the
    # shards' time (session 4, first call: both shards rc 124, no kernel profiled).
    run 150 $G --compile-only --plan "$W/plan-timing-noattr-100000.json" --out "$W/ncu-compile.jsonl" 2>&1 | tail -1
    for i in ${NCU_SHARDS:-0 1}; do
      echo "== ncu shard $i/3" >>"$OUT/ncu.csv"
      ATREX_GATE_NO_ATTRIBUTION=1 run 100 ncu --target-processes all --clock-control none --cache-control all \
        -k regex:'rms_norm_kernel|silu_and_mul_kernel|gemm_bf16_kernel' --launch-skip 5 --launch-count 20 \
        --metrics gpu__time_duration.sum --csv \
        $G --plan "$W/plan-timing-noattr-100000.json" --out "$W/gate-timing-under-ncu.jsonl" --shard $i/3 \
        >>"$OUT/ncu.csv" 2>>"$W/ncu.err"
      echo "ncu shard $i: rc $?"
    done
  fi
  if has clean; then
    # The gate as it now runs (clean timing on by default) on the timing plan; compare its
    # median_us (the clean run's) and performance.attributed.median_us with the ncu step.
    echo "== clean timing $(date -u +%T)"
    t0=$SECONDS
    run 200 $G --plan examples/gate/plan-timing.json --out "$OUT/gate-timing-clean.jsonl"
    echo "clean timing: rc $?, $((SECONDS - t0)) s"
  fi
  if has overhead; then
    # One submission over 10 shapes, compilation cached: the gate's own wall time per unit.
    echo "== overhead $(date -u +%T)"
    run 60 $G --plan examples/gate/plan-overhead.json --out $W/warm.jsonl >/dev/null 2>&1 # compile
    t0=$SECONDS
    run 200 $G --plan examples/gate/plan-overhead.json --out "$OUT/gate-overhead.jsonl"
    echo "overhead: rc $?, $((SECONDS - t0)) s for the whole run (compilation cached)"
  fi
  if has gputests; then
    echo "== GPU unit tests $(date -u +%T)"
    run 200 $B/test/unit/AtrexRtGpuTests --gtest_brief=1 >"$OUT/gpu-tests.txt" 2>&1; echo "rc $?"
    tail -8 "$OUT/gpu-tests.txt"
  fi
  if has hip; then
    echo "== HIP plan $(date -u +%T)"
    if [[ -d $B/hip-nvidia/include ]]; then
      run 150 $B/bin/atrex-gate --cache $PWD/build/gate-cache-hip --plan examples/gate/plan-hip.json \
        --out "$OUT/gate-hip.jsonl"; echo "rc $?"
    else
      echo "no patched HIP headers in $B (carry .debs)"
    fi
  fi
  if has sets; then
    echo "== sets $(date -u +%T)"
    if [[ ! -f $W/gate-both.jsonl && -n ${RESUME_FROM:-} && -f ${RESUME_FROM} ]]; then
      cp "$RESUME_FROM" $W/gate-both.jsonl; echo "seeded from $RESUME_FROM ($(wc -l <$W/gate-both.jsonl) lines)"
    fi
    t0=$SECONDS
    run ${SETS_S:-560} $G --jobs 16 --resume --plan bench/sets/plan-both.json --out $W/gate-both.jsonl
    echo "sets: rc $?, $((SECONDS - t0)) s, $(wc -l <$W/gate-both.jsonl) results"
    cp $W/gate-both.jsonl "$OUT/gate-both.jsonl"
  fi
  if has suite; then
    # Both sets on all 327 problems: one gate per GPU (--shard i/n), one results file (flock),
    # --resume across calls; RESUME_FROM seeds it on a fresh machine as for "sets".
    echo "== suite $(date -u +%T)"
    if [[ ! -f $W/gate-suite.jsonl && -n ${RESUME_FROM:-} && -f ${RESUME_FROM} ]]; then
      cp "$RESUME_FROM" $W/gate-suite.jsonl; echo "seeded from $RESUME_FROM ($(wc -l <$W/gate-suite.jsonl) lines)"
    fi
    n=$(nvidia-smi -L | wc -l); t0=$SECONDS
    # compile once (all submissions), then the shards
    run 200 $G --jobs 16 --compile-only --plan bench/sets/plan-suite.json --out $W/gate-suite.jsonl 2>&1 | tail -1
    for ((i = 0; i < n; i++)); do
      CUDA_VISIBLE_DEVICES=$i run ${SUITE_S:-540} $G --resume --plan bench/sets/plan-suite.json \
        --out $W/gate-suite.jsonl --shard $i/$n >"$W/suite-$i.log" 2>&1 &
    done
    wait
    echo "suite: $n GPUs, $((SECONDS - t0)) s, $(wc -l <$W/gate-suite.jsonl) of 654 results"
    tail -n 3 "$W"/suite-*.log
    cp $W/gate-suite.jsonl "$OUT/gate-suite.jsonl"
  fi
  if has validate; then
    # Suite validity of every problem on the GPU (the CPU run covered 256 of 327).
    echo "== validate $(date -u +%T)"
    t0=$SECONDS
    vin=bench/sets/bundle/sealed/sealed.json
    if [[ -n ${VALIDATE_IDS:-} ]]; then # a subset (e.g. the problems a cut-off call left)
      python3 - "$vin" "$W/validate-subset.json" $VALIDATE_IDS <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); keep = set(sys.argv[3:])
d["problems"] = [p for p in d["problems"] if p["id"] in keep]
json.dump(d, open(sys.argv[2], "w"))
PY
      vin=$W/validate-subset.json
    fi
    run 300 $B/bin/atrex-ref --validate $vin --seed 1 --device cuda \
      >"$OUT/validate-cuda.jsonl" 2>"$W/validate.err"
    echo "validate: rc $?, $((SECONDS - t0)) s, $(wc -l <"$OUT/validate-cuda.jsonl") problems"; tail -3 "$W/validate.err"
  fi
  if has examples; then
    echo "== examples $(date -u +%T)"
    t0=$SECONDS
    run 200 $G --plan examples/gate/plan.json --out "$OUT/gate-examples.jsonl"; echo "examples: rc $?, $((SECONDS - t0)) s"
  fi
  if has memcheck; then
    echo "== memcheck $(date -u +%T)"
    t0=$SECONDS
    run 400 $G --plan examples/gate/plan-memcheck.json --out "$OUT/gate-memcheck.jsonl"; echo "memcheck: rc $?, $((SECONDS - t0)) s"
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
grep -v '^\[' "$log" | tail -70
