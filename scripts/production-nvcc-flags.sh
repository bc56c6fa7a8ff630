#!/usr/bin/env bash
# Prints the nvcc flags that put the production libraries' headers
# (scripts/fetch-production-libs.sh) on a submission's include path: the one
# list of those directories; and -lcuda (below).
#   scripts/production-nvcc-flags.sh              absolute -isystem flags (compile-check.sh's NVCC_FLAGS)
#   scripts/production-nvcc-flags.sh --json       the same as a JSON array
#   scripts/production-nvcc-flags.sh --plan-args  --nvcc-flag=-isystem --nvcc-flag=.prodlibs/... for `atrex suite plan`
#                                                 (relative to the repository root: run it there)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# cutlass/tools/util/include: CUTLASS's util headers (FlashInfer's Hopper attention).
# flashinfer/nv_internal (+ its include/): TensorRT-LLM's fp8 block-scale GEMM
# ("tensorrt_llm/kernels/...", "tensorrt_llm/common/..."), as FlashInfer's JIT adds them.
dirs=(flashinfer/include flashinfer/cccl/libcudacxx/include flashinfer/cccl/cub
      flashinfer/cccl/thrust cutlass/include cutlass/tools/util/include
      flashinfer/nv_internal flashinfer/nv_internal/include)
flags=()
for d in "${dirs[@]}"; do
  [[ -d $root/.prodlibs/$d ]] || {
    echo "production-nvcc-flags: .prodlibs/$d missing: run scripts/fetch-production-libs.sh" >&2; exit 1; }
  # -isystem: library code, not the submission's (atrex-lint judges only the
  # submission's own code; with -I, FlashInfer's occupancy cache in
  # pos_enc.cuh read as the submission's static state: `suspicious`).
  case ${1:-} in
    --plan-args) flags+=("--nvcc-flag=-isystem" "--nvcc-flag=.prodlibs/$d") ;;
    *) flags+=("-isystem" "$root/.prodlibs/$d") ;;
  esac
done
# -lcuda: TensorRT-LLM's fp8 block-scale GEMM (nv_internal, compiled into
# fp8_blockscale_fused_moe) references driver-API functions (cuLibraryLoadData,
# ... on its DeepGEMM JIT path), as FlashInfer links its module (-lcuda). The gate
# loads a submission RTLD_NOW | RTLD_LOCAL, where libcuda (dlopen'ed RTLD_LOCAL by
# the CUDA runtime) resolves nothing: without it the library does not load.
case ${1:-} in
  --plan-args) flags+=("--nvcc-flag=-lcuda") ;;
  *) flags+=("-lcuda") ;;
esac
if [[ ${1:-} == --json ]]; then
  printf '%s\n' "${flags[@]}" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().split()))'
else
  echo "${flags[@]}"
fi
