#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/fuzzing.md) in build-fuzz/ and
# runs them:
#   scripts/fuzz.sh TARGET|all SECONDS     fuzz each for SECONDS of wall time,
#                                          growing fuzz/corpus/TARGET
#   scripts/fuzz.sh --smoke                replay every seed corpus once
#   scripts/fuzz.sh --list                 the target names
# One fuzzer process at a time (-jobs=1: one fuzzing child, its output in
# build-fuzz/findings/TARGET/fuzz-0.log and then in the run's log); new crashes, hangs and OOMs are
# written to build-fuzz/findings/TARGET/ and end the script non-zero.
# Environment: ATREX_FUZZ_JOBS (build parallelism, default 1),
# ATREX_FUZZ_ARGS (extra libFuzzer flags), ATREX_LLVM_ROOT.
set -uo pipefail
cd "$(dirname "$0")/.."
LLVM=${ATREX_LLVM_ROOT:-/usr/lib/llvm-22}
BUILD=build-fuzz
TARGETS=(trace-kineto trace-gzip trace-nsys trace-mapping score-results
  score-sealed suite-config suite-expr lint-policy dim-expr python rt-json
  rt-plan)

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
if [ "$1" = --list ]; then printf '%s\n' "${TARGETS[@]}"; exit 0; fi

build() {
  if [ ! -f $BUILD/CMakeCache.txt ]; then
    GEN=()
    command -v ninja >/dev/null && GEN=(-G Ninja)
    CC="$LLVM/bin/clang" CXX="$LLVM/bin/clang++" cmake -S . -B $BUILD "${GEN[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
      -DATREX_LLVM_ROOT="$LLVM" -DATREX_FUZZ=ON -DATREX_BUILD_TESTS=OFF >/dev/null || return 1
  fi
  cmake --build $BUILD --target atrex-fuzzers -j "${ATREX_FUZZ_JOBS:-1}"
}

# run TARGET ARGS...: the fuzzer with the project's limits, in
# build-fuzz/findings/TARGET (libFuzzer's -jobs writes fuzz-0.log there);
# paths in ARGS are relative to the source root.
run() {
  local t=$1; shift
  local root=$PWD dict=() args=()
  [ -f fuzz/dict/$t.dict ] && dict=(-dict=$root/fuzz/dict/$t.dict)
  for a in "$@"; do
    case $a in -*) args+=("$a") ;; *) args+=("$root/$a") ;; esac
  done
  mkdir -p $BUILD/findings/$t
  (cd $BUILD/findings/$t &&
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=0 \
    "$root/$BUILD/bin/fuzz-$t" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -artifact_prefix="$root/$BUILD/findings/$t/" "${dict[@]}" \
      ${ATREX_FUZZ_ARGS:-} "${args[@]}")
}

if [ "$1" = --smoke ]; then
  build >/dev/null || { echo "fuzz: build failed"; exit 1; }
  mkdir -p $BUILD/findings
  failed=0
  for t in "${TARGETS[@]}"; do
    [ -x $BUILD/bin/fuzz-$t ] || { echo "fuzz-$t: not built (zlib/SQLite missing?)"; continue; }
    dirs=(fuzz/corpus/$t)
    [ -d fuzz/regressions/$t ] && dirs+=(fuzz/regressions/$t)
    if run "$t" -runs=0 "${dirs[@]}" >$BUILD/findings/$t.smoke.log 2>&1; then
      echo "fuzz-$t: $(find "${dirs[@]}" -type f | wc -l) inputs ok"
    else
      echo "fuzz-$t: FAILED (log: $BUILD/findings/$t.smoke.log)"; failed=1
    fi
  done
  exit $failed
fi

[ $# -eq 2 ] || usage
SECONDS_EACH=$2
if [ "$1" = all ]; then sel=("${TARGETS[@]}"); else sel=("$1"); fi
build || { echo "fuzz: build failed"; exit 1; }
mkdir -p $BUILD/findings # the run's log lives there (a fresh build-fuzz/ has none)
failed=0
for t in "${sel[@]}"; do
  [ -x $BUILD/bin/fuzz-$t ] || { echo "fuzz-$t: not built"; failed=1; continue; }
  mkdir -p fuzz/corpus/$t
  log=$BUILD/findings/$t.$(date -u +%Y%m%dT%H%M%S).log
  echo "== fuzz-$t for ${SECONDS_EACH}s (log: $log)"
  # New inputs go to a scratch corpus; only small ones join fuzz/corpus.
  new=$BUILD/corpus-new/$t
  mkdir -p $new
  start=$(date +%s)
  cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  run "$t" -jobs=1 -max_total_time="$SECONDS_EACH" -print_final_stats=1 $new fuzz/corpus/$t >"$log" 2>&1
  rc=$?
  # CPU seconds of the fuzzer (this shell's waited-for children), wall seconds.
  cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  echo "fuzz-$t: cpu_s $(( (cpu1 - cpu0) / $(getconf CLK_TCK) )) wall_s $(( $(date +%s) - start ))" | tee -a "$log"
  grep -E '^(stat::|#[0-9]+ *DONE)' "$log" | tail -8
  # Keep the inputs that add coverage and are small (<= 8 KiB).
  find $new -type f -size +8k -delete
  run "$t" -merge=1 fuzz/corpus/$t $new >>"$log" 2>&1 &&
    echo "fuzz-$t: corpus $(ls fuzz/corpus/$t | wc -l) files, $(du -sk fuzz/corpus/$t | cut -f1) KiB"
  rm -rf $new
  if [ $rc -ne 0 ]; then
    echo "fuzz-$t: finding (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|Test unit written' "$log")"
    failed=1
  fi
done
exit $failed
