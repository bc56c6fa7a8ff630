#!/usr/bin/env bash
# H200 runs for issue 15's throughput part (2026-12-02b: worker batches).
# Builds runtime/ of this tree and runs the steps in STEPS, each bounded so
# that the call ends inside DEADLINE_S; run from the tree's root (the device
# tool runs the session's checkout: the session carried this tree as a
# snapshot, see bench/results/gate-2026-12-02b/README.md).
#
#   STEPS="build compile-naive suite-naive perunit-naive" DEADLINE_S=560 bash bench/gate/run-h200-gatefast.sh
#
# build            runtime/ with tests (Ninja, -j16) into /tmp/b (kept while the machine stays
#                  warm: skipped when /tmp/b was built from the same COMMIT); nlohmann-json and
#                  CLI11 from .debs/ (scripts/fetch-device-debs.sh) where the machine lacks them
# compile-SET      atrex-gate --compile-only --jobs 16 (at most COMPILE_S, default 200 s) of bench/sets/plan-suite-SET.json into
#                  the cache /tmp/gate-cache (SET: naive, production, production-lib; the
#                  production-lib set needs FlashInfer's headers: .prodlibs/, or carried packed as
#                  .prodpack/prodlibs.tar.xz, unpacked here: examples/sets/production-lib/README.md)
# validate         atrex-ref --validate --device cuda on every problem of the sealed bundle
#                  (bench/sets/bundle/sealed/sealed.json) in VALIDATE_SHARDS (6) processes,
#                  skipping those of VALIDATE_DONE (a jsonl of an earlier call): $OUT/validate-cuda.jsonl
# suite-SET        the whole default suite for SET (SUITE_PART_<SET>: earlier results to resume
#                  from, e.g. SUITE_PART_naive=out/part.jsonl[.gz], re-keyed to the current bundle and
#                  plan, so a committed run of an earlier packing works), default path (worker
#                  batches), cache warm; --resume across calls; wall time in the log
# perunit-SET      the same plan with --worker-per-unit, shard 0/$PERUNIT_SHARDS (the same
#                  unit indices, hence the same seeds, as in suite-SET), for the comparison
# gputests         AtrexRtGpuTests (TEST_TMPDIR=/tmp/gt); the example plans' results in
#                  $OUT/gpu-results.tgz
# ncu              Nsight Compute's gpu__time_duration of every kernel of TIMING_PLAN
#                  (default examples/gate/plan-timing-7.json), one ncu process per submission
#                  (--shard i/n), attribution off, 20 launches of the submission's own kernel
#                  (^<operator>_kernel$, or NCU_KERNELS) after NCU_SKIP (5) skipped: $OUT/ncu.csv
# clean            the gate as it runs by default on TIMING_PLAN: $OUT/gate-timing.jsonl
#                  (compare: bench/gate/ncu-compare.py $OUT/ncu.csv $OUT/gate-timing.jsonl)
# python           the Python submissions' plan (PY_PLAN, default examples/gate/python/plan.json):
#                  $OUT/python.jsonl, a line per result in the log (issue 18)
# Results: $OUT/log.txt, $OUT/suite-SET.jsonl, $OUT/perunit-SET.jsonl, $OUT/gpu-tests.txt.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
log="$OUT/log.txt"; B=/tmp/b; C=/tmp/gate-cache
G="$B/bin/atrex-gate --cache $C"
COMMIT=${COMMIT:-unknown}
DEADLINE_S=${DEADLINE_S:-540}
PERUNIT_SHARDS=${PERUNIT_SHARDS:-8}
left() { echo $((DEADLINE_S - SECONDS - ${1:-10})); }
run() { local lim=$1; shift; local l; l=$(left); ((l < lim)) && lim=$l
  if ((lim < 5)); then echo "-- skipped (deadline): $*"; return 124; fi
  timeout "$lim" "$@"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
counts() { python3 - "$1" <<'PY'
import collections, json, sys
c = collections.Counter(); v = collections.Counter(); n = 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    n += 1; c[r["status"]] += 1; v[r["verdict"]] += 1
print(f"  {n} results: " + ", ".join(f"{k} {x}" for k, x in sorted(c.items())) +
      "; verdicts " + ", ".join(f"{k} {x}" for k, x in sorted(v.items())))
PY
}
{
  echo "== $(date -u +%FT%TZ) steps: $STEPS; deadline ${DEADLINE_S} s; commit $COMMIT"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  nproc
  if has build; then
    if [[ -x $B/bin/atrex-gate && "$(cat $B/.commit 2>/dev/null)" == "$COMMIT" ]]; then
      echo "build: kept (/tmp/b from $COMMIT)"
    else
      t0=$SECONDS
      # nlohmann-json and CLI11 (header-only): the carried .debs/ where the machine lacks them
      rtinc=$(scripts/device-headers.sh $B-debs)
      cmake -S runtime -B $B -G Ninja -DATREX_PYTHON=python3 -DCMAKE_BUILD_TYPE=Release \
        -DATREX_RT_GIT_COMMIT="$COMMIT" $rtinc >/dev/null &&
        cmake --build $B -j16 2>&1 | grep -E 'error|FAILED|warning: unused'
      echo "$COMMIT" > $B/.commit
      echo "build: $((SECONDS - t0)) s (${rtinc:-nlohmann-json and CLI11 from the system})"
    fi
  fi
  if [[ $STEPS == *production-lib* && ! -d .prodlibs/flashinfer && -f .prodpack/prodlibs.tar.xz ]]; then
    mkdir -p .prodlibs && xz -dc .prodpack/prodlibs.tar.xz | tar -C .prodlibs -xf - && echo "prodlibs: unpacked"
  fi
  if has validate; then
    # VALIDATE_SHARDS processes side by side (the checks copy whole outputs
    # to the host: CPU-bound); VALIDATE_DONE: a validate-cuda.jsonl of an
    # earlier call whose problems are skipped.
    echo "== validate $(date -u +%T)"; t0=$SECONDS
    n=${VALIDATE_SHARDS:-6}; mkdir -p /tmp/val
    python3 - bench/sets/bundle/sealed/sealed.json /tmp/val "$n" "${VALIDATE_DONE:-}" <<'PY'
import json, os, sys
src, out, n, done = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
skip = {json.loads(l)["id"] for l in open(done) if l.strip()} if done else set()
d = json.load(open(src))
pending = [p for p in d["problems"] if p["id"] not in skip]
for i in range(n):
    json.dump(dict(d, problems=pending[i::n]), open(os.path.join(out, f"part{i}.json"), "w"))
print(f"validate: {len(pending)} problems ({len(skip)} done earlier) in {n} shards")
PY
    lim=$(left); ((lim > ${VALIDATE_S:-300})) && lim=${VALIDATE_S:-300}
    for ((i = 0; i < n; i++)); do
      timeout "$lim" $B/bin/atrex-ref --validate /tmp/val/part$i.json --seed 1 --device cuda \
        >/tmp/val/part$i.jsonl 2>/tmp/val/part$i.err &
    done
    wait
    cat /tmp/val/part*.jsonl > "$OUT/validate-cuda.jsonl"
    echo "validate: $((SECONDS - t0)) s, $(wc -l <"$OUT/validate-cuda.jsonl") problems"
    python3 - "$OUT/validate-cuda.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = [r for r in rows if not r.get("ok", False)]
print(f"  valid {len(rows) - len(bad)} of {len(rows)}, {sum(r.get('seconds', 0) for r in rows):.0f} s in atrex-ref")
for r in bad[:20]:
    print("  invalid:", json.dumps(r)[:300])
PY
  fi
  for s in naive production production-lib; do
    if has compile-$s; then
      echo "== compile $s $(date -u +%T)"; t0=$SECONDS
      run ${COMPILE_S:-200} $G --quiet --compile-only --jobs 16 --plan bench/sets/plan-suite-$s.json --out /tmp/none.jsonl
      echo "compile-$s: rc $?, $((SECONDS - t0)) s"
    fi
  done
  for s in naive production production-lib; do
    if has suite-$s; then
      echo "== suite $s $(date -u +%T)"; t0=$SECONDS
      # SUITE_PART_SET: the results of an earlier call or packing (carried, .jsonl or .jsonl.gz),
      # re-keyed to this bundle's ids and this plan's unit indices (bench/sets/rekey-results.py
      # --plan: results of problems no longer in the suite are dropped), then resumed from
      part=SUITE_PART_${s//-/_}
      if [[ -n ${!part:-} && ! -s /tmp/suite-$s.jsonl ]]; then
        python3 bench/sets/rekey-results.py --plan bench/sets/plan-suite-$s.json \
          bench/sets/bundle/sealed/sealed.json "${!part}" /tmp/suite-$s.jsonl
      fi
      run ${SUITE_S:-400} $G --resume --plan bench/sets/plan-suite-$s.json --out /tmp/suite-$s.jsonl
      echo "suite-$s: rc $?, $((SECONDS - t0)) s wall (this call)"; counts /tmp/suite-$s.jsonl
      cp /tmp/suite-$s.jsonl "$OUT/suite-$s.jsonl"
    fi
  done
  for s in naive production; do
    if has perunit-$s; then
      echo "== per-unit $s, shard 0/$PERUNIT_SHARDS $(date -u +%T)"; t0=$SECONDS
      run ${PERUNIT_S:-200} $G --resume --worker-per-unit --shard 0/$PERUNIT_SHARDS \
        --plan bench/sets/plan-suite-$s.json --out /tmp/perunit-$s.jsonl
      echo "perunit-$s: rc $?, $((SECONDS - t0)) s wall (this call)"; counts /tmp/perunit-$s.jsonl
      cp /tmp/perunit-$s.jsonl "$OUT/perunit-$s.jsonl"
    fi
  done
  TP=${TIMING_PLAN:-examples/gate/plan-timing-7.json}
  if has ncu; then
    echo "== ncu $(date -u +%T) on $TP"; t0=$SECONDS
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['submissions']))" "$TP")
    # Compile first (outside ncu): under ncu every nvcc process is profiled too.
    run 200 $G --quiet --compile-only --jobs 16 --plan "$TP" --out /tmp/none.jsonl
    : >"$OUT/ncu.csv"
    for ((i = 0; i < n; i++)); do
      echo "== ncu shard $i/$n" >>"$OUT/ncu.csv"
      # Only the submission's own kernel (named <operator>_kernel in the timing plan's
      # sources): with a looser regex torch's input generation took the 20 launches.
      op=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['submissions'][int(sys.argv[2])]['operator'])" "$TP" $i)
      ATREX_GATE_NO_ATTRIBUTION=1 run ${NCU_S:-60} ncu --target-processes all --clock-control none \
        --cache-control all -k regex:"${NCU_KERNELS:-^${op}_kernel\$}" --launch-skip ${NCU_SKIP:-5} --launch-count 20 \
        --metrics gpu__time_duration.sum --csv \
        $G --quiet --plan "$TP" --out /tmp/under-ncu.jsonl --shard $i/$n >>"$OUT/ncu.csv" 2>>/tmp/ncu.err
      echo "ncu shard $i: rc $?"
      python3 -c "import json,sys; [print('  ', r['problem']['id'], r['status'], r['verdict'], r.get('reason','')[:300]) for r in map(json.loads, open(sys.argv[1]))]" /tmp/under-ncu.jsonl
    done
    tail -5 /tmp/ncu.err
    echo "ncu: $((SECONDS - t0)) s"
  fi
  if has clean; then
    echo "== gate timing $(date -u +%T) on $TP"; t0=$SECONDS
    run 300 $G --plan "$TP" --out "$OUT/gate-timing.jsonl"
    echo "gate timing: rc $?, $((SECONDS - t0)) s"
  fi
  if has python; then
    PP=${PY_PLAN:-examples/gate/python/plan.json}
    echo "== python submissions $(date -u +%T) on $PP"; t0=$SECONDS
    run ${PYTHON_S:-400} $G --plan "$PP" --out "$OUT/python.jsonl"
    echo "python: rc $?, $((SECONDS - t0)) s"
    python3 - "$OUT/python.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    perf = r.get("performance") or {}
    a = r.get("attribution") or {}
    print("  %-40s %-28s %-5s %-10s exp-met=%s med_us=%s host_us=%s" % (
        r["submission"]["name"], r["problem"]["id"], r["status"], r["verdict"],
        r.get("expected_verdict_met"), perf.get("median_us"),
        (perf.get("python_host_call") or {}).get("median_us")))
    if r.get("reason"):
        print("      reason:", r["reason"][:400])
    if a.get("foreign_kernels"):
        print("      foreign:", a["foreign_kernels"][:4])
    print("      python:", json.dumps(r.get("python"))[:600])
PY
  fi
  if has gputests; then
    echo "== GPU unit tests $(date -u +%T)"; t0=$SECONDS
    rm -rf /tmp/gt; mkdir -p /tmp/gt
    TEST_TMPDIR=/tmp/gt run ${GPUTESTS_S:-360} $B/test/unit/AtrexRtGpuTests ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} \
      >"$OUT/gpu-tests.txt" 2>&1
    echo "gputests: rc $?, $((SECONDS - t0)) s"; grep -E '^\[  (FAILED|PASSED|SKIPPED) |^\[       OK' "$OUT/gpu-tests.txt"
    (cd /tmp/gt && tar czf "$OUT/gpu-results.tgz" $(ls -d atrex-gpu-*/r.jsonl 2>/dev/null))
  fi
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
grep -v '^\[[0-9]' "$log" | tail -60
