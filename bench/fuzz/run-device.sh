#!/usr/bin/env bash
# Runs libFuzzer targets built here (build-fuzz/, scripts/fuzz.sh) on the
# device machine's 16 cores, for issue 23's CPU-hours: the device has no
# LLVM, so the fuzzers and the shared libraries they need travel packed in
# .fuzzpack/pack.tar.xz (git-ignored; bench/fuzz/pack.sh makes it).
#
#   TARGETS="rt-json rt-plan" FORK=4 SECONDS_EACH=500 OUT=$OUT bash bench/fuzz/run-device.sh
#
# Each target runs in parallel with -fork=FORK (FORK fuzzing children), the
# project's limits (-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048),
# its dictionary, starting from fuzz/corpus/TARGET; its user+system CPU
# seconds (children included) go to $OUT/TARGET.time, its log to
# $OUT/TARGET.log, crashes/hangs/OOMs to $OUT/findings/TARGET/, and the
# inputs it added (at most 8 KiB each) to $OUT/new-TARGET.tgz, merged into
# fuzz/corpus here by `fuzz-TARGET -merge=1`.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
ROOT=$PWD; P=/tmp/fz
SECONDS_EACH=${SECONDS_EACH:-500}; FORK=${FORK:-4}
mkdir -p $P && tar -C $P -xJf .fuzzpack/pack.tar.xz || { echo "no pack"; exit 1; }
export LD_LIBRARY_PATH=$P/lib
echo "== $(date -u +%FT%TZ) targets: $TARGETS; fork $FORK; ${SECONDS_EACH} s each; $(nproc) cores" | tee $OUT/summary.txt
for t in $TARGETS; do
  (
    mkdir -p $P/new/$t $OUT/findings/$t $P/work/$t
    cp -r fuzz/corpus/$t $P/seed-$t
    dict=(); [ -f fuzz/dict/$t.dict ] && dict=(-dict=$ROOT/fuzz/dict/$t.dict)
    cd $P/work/$t
    TIMEFORMAT="%U %S %R"
    { time UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=0 \
        $P/bin/fuzz-$t -fork=$FORK -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -max_total_time=$SECONDS_EACH -print_final_stats=1 "${dict[@]}" \
        -artifact_prefix=$OUT/findings/$t/ $P/new/$t $P/seed-$t > $OUT/$t.log 2>&1; \
        echo "rc $?" >> $OUT/$t.log; } 2> $OUT/$t.time
    find $P/new/$t -type f -size +8k -delete
    tar -C $P/new -czf $OUT/new-$t.tgz $t
  ) &
done
wait
for t in $TARGETS; do
  echo "$t: cpu(user sys wall) $(cat $OUT/$t.time) $(tail -1 $OUT/$t.log); new $(tar -tzf $OUT/new-$t.tgz | grep -vc '/$') files; findings $(ls $OUT/findings/$t | wc -l)" | tee -a $OUT/summary.txt
  grep -E '^#[0-9]+: cov' $OUT/$t.log | tail -1 | tee -a $OUT/summary.txt
done
echo "== done $(date -u +%FT%TZ)" | tee -a $OUT/summary.txt
