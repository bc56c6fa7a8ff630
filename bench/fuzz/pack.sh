#!/usr/bin/env bash
# Packs the fuzzers named in TARGETS (built by scripts/fuzz.sh in build-fuzz/)
# with the shared libraries they load that the device lacks,
# into .fuzzpack/pack.tar.xz (git-ignored), for bench/fuzz/run-device.sh.
# The device tool carries at most 64 MiB with the checkout (about 32 MB):
# LLVM's library packs to about 27 MB; MLIR's and Clang's do not fit beside
# it. The device has no libz3.so.4 (linked by libLLVM.so for the static
# analyzer, never called by the readers): STUB_Z3=1 packs a stub of that
# name with no symbols instead of the real one (libLLVM.so binds lazily).
#   TARGETS="trace-kineto lint-policy" STUB_Z3=1 bash bench/fuzz/pack.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .fuzzpack/stage && mkdir -p .fuzzpack/stage/bin .fuzzpack/stage/lib
for t in $TARGETS; do
  cp build-fuzz/bin/fuzz-$t .fuzzpack/stage/bin/
  # Only what the device's image lacks (it has libxml2, ICU, libedit, libffi,
  # SQLite, zstd, ... as a device run's `ldconfig -p` showed on 2026-12-03).
  for l in $(ldd build-fuzz/bin/fuzz-$t | awk '/=>/{print $3}' |
             grep -E '/lib(LLVM|MLIR|clang-cpp|z3|tree-sitter)[.-]'); do
    cp -L "$l" .fuzzpack/stage/lib/
  done
done
if [[ ${STUB_Z3:-0} == 1 && -f .fuzzpack/stage/lib/libz3.so.4 ]]; then
  echo 'void atrex_z3_stub(void) {}' > .fuzzpack/z3stub.c
  gcc -shared -fPIC -Wl,-soname,libz3.so.4 -o .fuzzpack/stage/lib/libz3.so.4 .fuzzpack/z3stub.c
fi
tar -C .fuzzpack/stage -cf - . | xz -6 -T2 > .fuzzpack/pack.tar.xz
ls -la .fuzzpack/pack.tar.xz
