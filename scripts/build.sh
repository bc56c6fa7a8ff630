#!/usr/bin/env bash
# Configures and builds both halves of atrex:
#   build/          analysis side (LLVM/Clang/MLIR 22): atrex-lint, atrex-opt, ...
#   build/runtime/  execution side (CUDA + libtorch, no LLVM): atrex-gate, atrex-ref
# Idempotent; re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${ATREX_JOBS:-$(nproc)}
LLVM=${ATREX_LLVM_ROOT:-/usr/lib/llvm-22}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
# Configured: the generator wrote its build file. A configure that failed
# (a missing dependency, fixed since) leaves a CMakeCache.txt without one:
# configure again then, with the cache's generator.
configured() { [ -f "$1/build.ninja" ] || [ -f "$1/Makefile" ]; }
gen_of() { [ -f "$1/CMakeCache.txt" ] || [ ${#GEN[@]} -eq 0 ] || printf '%s\n' "${GEN[@]}"; }

if ! configured build; then
  mapfile -t G < <(gen_of build)
  cmake -S . -B build ${G[@]+"${G[@]}"} -DCMAKE_BUILD_TYPE=Release \
    -DATREX_LLVM_ROOT="$LLVM" -DLLVM_EXTERNAL_LIT="$LLVM/bin/lit"
fi
cmake --build build -j "$JOBS"

if [ -f runtime/CMakeLists.txt ] && [ -z "${ATREX_SKIP_RUNTIME:-}" ]; then
  if ! configured build/runtime; then
    mapfile -t G < <(gen_of build/runtime)
    TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
    cmake -S runtime -B build/runtime ${G[@]+"${G[@]}"} -DCMAKE_BUILD_TYPE=Release \
      ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"}
  fi
  cmake --build build/runtime -j "$JOBS"
fi
