#!/usr/bin/env bash
# Runs libFuzzer targets built here (build-fuzz/, scripts/fuzz.sh) on the
# device machine's 16 cores, for issue 23's CPU-hours: the device has no
# LLVM, so the fuzzers travel packed in .fuzzpack/pack.tar.xz (git-ignored;
# bench/fuzz/pack.sh makes it, statically linked or with the shared
# libraries they need).
#
#   TARGETS="rt-json rt-plan" FORK=4 SECONDS_EACH=500 OUT=$OUT bash bench/fuzz/run-device.sh
#   TARGETS="trace-gzip:7 trace-nsys:7 dim-expr:1" SECONDS_EACH=540 OUT=$OUT bash bench/fuzz/run-device.sh
#
# Each target runs in parallel with -fork=N (N fuzzing children: the
# target's ":N", else FORK), the project's limits (-timeout=10
# -rss_limit_mb=2048 -malloc_limit_mb=2048), its dictionary, starting from
# fuzz/corpus/TARGET. Per target: its user+system CPU seconds (children
# included) in TARGET.time, its log in TARGET.log, crashes/hangs/OOMs in
# findings/TARGET/, and the inputs it added (at most 8 KiB each) in
# new/TARGET/ (merged into fuzz/corpus here by `fuzz-TARGET -merge=1`).
# The device tool returns at most 8 files, so all of these come back in one
# archive, $OUT/results.tgz, beside $OUT/summary.txt.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
ROOT=$PWD; P=/tmp/fz; R=$P/results
SECONDS_EACH=${SECONDS_EACH:-500}; FORK=${FORK:-4}
mkdir -p $P $R && tar -C $P -xJf .fuzzpack/pack.tar.xz || { echo "no pack"; exit 1; }
export LD_LIBRARY_PATH=$P/lib
ASAN=detect_leaks=0
[ -f $P/asan_options ] && ASAN=$ASAN:$(cat $P/asan_options)   # a STATIC=1 pack (pack.sh says why)
names=()
echo "== $(date -u +%FT%TZ) targets: $TARGETS; default fork $FORK; ${SECONDS_EACH} s each; $(nproc) cores; ASAN_OPTIONS=$ASAN" | tee $OUT/summary.txt
for spec in $TARGETS; do
  t=${spec%%:*}; n=$FORK
  [[ $spec == *:* ]] && n=${spec##*:}
  names+=("$t")
  (
    mkdir -p $R/new/$t $R/findings/$t $P/work/$t
    cp -r fuzz/corpus/$t $P/seed-$t
    dict=(); [ -f fuzz/dict/$t.dict ] && dict=(-dict=$ROOT/fuzz/dict/$t.dict)
    cd $P/work/$t
    TIMEFORMAT="%U %S %R"
    { time UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=$ASAN \
        $P/bin/fuzz-$t -fork=$n -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_total_time=$SECONDS_EACH -print_final_stats=1 "${dict[@]}" \
        -artifact_prefix=$R/findings/$t/ $R/new/$t $P/seed-$t > $R/$t.log 2>&1; \
        echo "rc $? fork $n" >> $R/$t.log; } 2> $R/$t.time
    find $R/new/$t -type f -size +8k -delete
  ) &
done
wait
for t in "${names[@]}"; do
  echo "$t: cpu(user sys wall) $(cat $R/$t.time) $(tail -1 $R/$t.log); new $(find $R/new/$t -type f | wc -l) files; findings $(ls $R/findings/$t | wc -l)" | tee -a $OUT/summary.txt
  grep -E '^#[0-9]+: cov' $R/$t.log | tail -1 | tee -a $OUT/summary.txt
done
tar -C $R -czf $OUT/results.tgz .
echo "== done $(date -u +%FT%TZ)" | tee -a $OUT/summary.txt
