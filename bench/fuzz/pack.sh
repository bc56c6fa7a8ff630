#!/usr/bin/env bash
# Packs the fuzzers named in TARGETS (built by scripts/fuzz.sh in build-fuzz/)
# into .fuzzpack/pack.tar.xz (git-ignored), for bench/fuzz/run-device.sh.
# The device tool carries at most 64 MiB with the checkout (about 33 MB),
# and the device has no LLVM.
#
#   TARGETS="trace-gzip python score-sealed" STATIC=1 bash bench/fuzz/pack.sh
#   TARGETS="trace-kineto lint-policy" STUB_Z3=1 bash bench/fuzz/pack.sh
#
# STATIC=1 (the way for several LLVM-, MLIR- or Clang-linked targets): each
# fuzzer is linked again with the build's own link line, the shared
# libLLVM/libMLIR/libclang-cpp swapped for Debian's static archives
# (--gc-sections keeps what is used): a few MB each instead of the shared
# libraries' 27 MB (LLVM) and more (MLIR, Clang) packed, which do not fit
# beside each other.
# Otherwise the shared libraries the device lacks travel beside the fuzzers;
# it has no libz3.so.4 (linked by libLLVM.so for the static analyzer, never
# called by the readers): STUB_Z3=1 packs a stub of that name with no
# symbols instead of the real one (libLLVM.so binds lazily).
set -euo pipefail
cd "$(dirname "$0")/../.."
L=${ATREX_LLVM_ROOT:-/usr/lib/llvm-22}/lib
S=.fuzzpack/stage
rm -rf $S && mkdir -p $S/bin $S/lib
for t in $TARGETS; do
  if [[ ${STATIC:-0} == 1 ]]; then
    link=$(cd build-fuzz && ninja -t commands bin/fuzz-$t | tail -1 | sed -e 's/^: && //' -e 's/ && :$//')
    link=${link//"$L/libMLIR.so.22.1"/}
    link=${link//"$L/libLLVM.so.22.1"/}
    link=${link//"$L/libLLVM.so.1"/}
    link=${link//"$L/libclang-cpp.so.22.1"/}
    link=${link//"-o bin/fuzz-$t"/"-o ../$S/bin/fuzz-$t"}
    # Not in a --start-group: the archives' order matters only for the
    # dynamic libraries' sonames here, and a group resolves cycles.
    (cd build-fuzz && eval "$link -Wl,--gc-sections -Wl,--start-group $L/libclang[A-Z]*.a \
      $L/libMLIR[A-Z]*.a $L/libLLVM[A-Z]*.a -Wl,--end-group -lz -lzstd -ltinfo -lpthread -ldl")
    if ldd $S/bin/fuzz-$t | grep -qE 'lib(LLVM|MLIR|clang-cpp)'; then
      echo "pack.sh: fuzz-$t still loads LLVM, MLIR or Clang shared libraries" >&2; exit 1
    fi
    # Only what the device's image lacks (it has libxml2, ICU, libedit,
    # libffi, SQLite, zstd, ... as a device run's `ldconfig -p` showed).
    for l in $(ldd $S/bin/fuzz-$t | awk '/=>/{print $3}' | grep -E '/libtree-sitter[.-]' || true); do
      cp -L "$l" $S/lib/
    done
  else
    cp build-fuzz/bin/fuzz-$t $S/bin/
    for l in $(ldd build-fuzz/bin/fuzz-$t | awk '/=>/{print $3}' |
               grep -E '/lib(LLVM|MLIR|clang-cpp|z3|tree-sitter)[.-]'); do
      cp -L "$l" $S/lib/
    done
  fi
done
if [[ ${STATIC:-0} == 1 ]]; then
  # LLVM's BumpPtrAllocator poisons its free space by hand where it is
  # compiled with ASan: the instrumented copies of its inline functions (the
  # fuzzers' own code) and the uninstrumented archives' code (llvm::yaml's
  # parser) then disagree, a false use-after-poison (seen on fuzz-python at
  # its first input). The shared-library build keeps them apart; the static
  # one runs with manual poisoning off (ASan's own checks stay on).
  echo "allow_user_poisoning=0" > $S/asan_options
fi
if [[ ${STUB_Z3:-0} == 1 && -f $S/lib/libz3.so.4 ]]; then
  echo 'void atrex_z3_stub(void) {}' > .fuzzpack/z3stub.c
  gcc -shared -fPIC -Wl,-soname,libz3.so.4 -o $S/lib/libz3.so.4 .fuzzpack/z3stub.c
fi
tar -C $S -cf - . | xz -9e -T2 > .fuzzpack/pack.tar.xz
rm -rf $S # the device tool would carry the unpacked stage too
ls -la .fuzzpack/pack.tar.xz
