#!/usr/bin/env bash
# The one test command: builds atrex, then runs every test through lit
# (FileCheck tests of the tools and passes, GoogleTest binaries of the
# analysis side and of the runtime) and ends with one closing line:
#   N passed, N failed, N skipped
# Tests that need a GPU (lit feature `cuda-gpu`) are skipped without one and
# counted as skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
LLVM=${ATREX_LLVM_ROOT:-/usr/lib/llvm-22}

scripts/build.sh || { echo "atrex: build failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

suites=(build/test build/test/Unit)
[ -f build/runtime/test/lit.site.cfg.py ] && suites+=(build/runtime/test)

log=$(mktemp)
"$LLVM/bin/lit" -sv ${ATREX_LIT_ARGS:-} "${suites[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# Where a sanitizer fuzz build exists (scripts/fuzz.sh made build-fuzz/;
# docs/fuzzing.md): every seed corpus and regression input once under
# ASan/UBSan, one more test. CI's fresh clone has none: there
# test/fuzz/replay.test replays the same inputs without sanitizers.
fuzz_rc=0
if [ -f build-fuzz/CMakeCache.txt ] && [ -z "${ATREX_SKIP_FUZZ:-}" ]; then
  echo "== fuzz smoke (build-fuzz/)"
  scripts/fuzz.sh --smoke || fuzz_rc=1
fi

count() { # sums "  Label: N" lines of lit's summary
  local n=0 v
  for label in "$@"; do
    v=$(awk -v l="$label" '{ if (match($0, "^ *" l " *: *[0-9]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: */, "", s); t += s } } END { print t + 0 }' "$log")
    n=$((n + ${v:-0}))
  done
  echo "$n"
}
passed=$(count "Passed" "Expectedly Failed")
failed=$(count "Failed" "Unexpectedly Passed" "Unresolved" "Timed Out")
if [ -f build-fuzz/CMakeCache.txt ] && [ -z "${ATREX_SKIP_FUZZ:-}" ]; then
  if [ "$fuzz_rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi
skipped=$(count "Unsupported" "Skipped")
rm -f "$log"
echo
echo "GPU tests (REQUIRES: cuda-gpu) run only where nvidia-smi lists a GPU; see bench/results/ for their last device run."
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
