#!/usr/bin/env bash
# Prints the nvcc flags that put the production libraries' headers
# (scripts/fetch-production-libs.sh) on a submission's include path: a plan's
# `nvcc_flags` for examples/sets/production-lib, or compile-check.sh's NVCC_FLAGS.
# Absolute paths of this checkout (the gate compiles in its cache directory).
#   scripts/production-nvcc-flags.sh [--json]
set -euo pipefail
T=$(cd "$(dirname "$0")/.." && pwd)/.prodlibs
flags=(-I"$T/flashinfer/include" -I"$T/flashinfer/cccl/libcudacxx/include"
       -I"$T/flashinfer/cccl/cub" -I"$T/flashinfer/cccl/thrust" -I"$T/cutlass/include")
for f in "${flags[@]}"; do
  d=${f#-I}; [[ -d $d ]] || { echo "production-nvcc-flags: $d missing: run scripts/fetch-production-libs.sh" >&2; exit 1; }
done
if [[ ${1:-} == --json ]]; then
  printf '%s\n' "${flags[@]}" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().split()))'
else
  echo "${flags[@]}"
fi
