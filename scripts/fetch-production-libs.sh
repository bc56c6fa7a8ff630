#!/usr/bin/env bash
# Fetches the header libraries the production set of examples/sets/production-lib
# instantiates (issue 20: production baselines built from production kernel
# libraries, never copied into the project) into the git-ignored .prodlibs/
# (a dot directory: atrex-lint's include inference skips those, so the
# repository's own lint tests never pick these copies up; under third_party/
# test/lint/vendor-cutlass.cu found the real CUTLASS instead of its stand-in header):
#   .prodlibs/flashinfer/include   FlashInfer's header library (norm, activation,
#                                    pos_enc, sampling, attention), from PyPI's
#                                    flashinfer-python wheel (data/include)
#   .prodlibs/flashinfer/cccl      the CCCL the wheel ships (data/cccl: libcudacxx, cub,
#                                    thrust; newer than CUDA 13.0's: FlashInfer 0.7's
#                                    fastdiv needs cuda::fast_mod_div)
#   .prodlibs/cutlass/include      the CUTLASS headers that wheel ships (data/cutlass)
#   .prodlibs/cutlass/tools/util/include  CUTLASS's util headers (data/cutlass/tools/util/include:
#                                    cutlass/util/command_line.h, ...), which FlashInfer's
#                                    Hopper attention includes through cutlass_utils.cuh (FA3)
#   .prodlibs/flashinfer/nv_internal  the part of the wheel's TensorRT-LLM sources
#                                    (data/csrc/nv_internal) that TensorRT-LLM's fp8
#                                    block-scale GEMM runner needs (fp8_blockscale_fused_moe):
#                                    kernels/cutlass_kernels/fp8_blockscale_gemm, the
#                                    deep_gemm and common headers it includes, and
#                                    cpp/common's logger and exception sources (0.6 MB).
#                                    Compiled library code (.cu/.cpp), which a submission
#                                    #includes (a submission is one nvcc call)
# The flags a submission needs: scripts/production-nvcc-flags.sh prints them.
# Pinned to one version (FLASHINFER_VERSION); idempotent. The GPU machine has no
# package registry and the device tool carries at most 64 MiB: carry it packed
# (`tar -C .prodlibs -cJf .prodpack/prodlibs.tar.xz .`, about 64 MB unpacked).
#   scripts/fetch-production-libs.sh
#   NVCC_FLAGS="$(scripts/production-nvcc-flags.sh)" examples/sets/compile-check.sh examples/sets/production-lib/*.cu
set -euo pipefail
cd "$(dirname "$0")/.."
V=${FLASHINFER_VERSION:-0.7.4}
T=.prodlibs
stamp=$T/flashinfer/.version
if [[ -f $stamp && $(cat $stamp) == "$V" && -d $T/cutlass/include && -d $T/flashinfer/cccl &&
      -d $T/flashinfer/nv_internal && -d $T/cutlass/tools/util/include ]]; then
  echo "atrex: $T/flashinfer $V present"; exit 0
fi
cache=.cache/wheels; mkdir -p "$cache"
# (globs, not `ls | head`: a pipe into head under pipefail can fail with SIGPIPE)
shopt -s nullglob
whls=("$cache"/flashinfer_python-"$V"-*.whl)
if ((${#whls[@]} == 0)); then
  python3 -m pip download --quiet --no-deps --dest "$cache" "flashinfer-python==$V"
  whls=("$cache"/flashinfer_python-"$V"-*.whl)
fi
((${#whls[@]} > 0)) || { echo "atrex: no flashinfer-python $V wheel in $cache" >&2; exit 1; }
whl=${whls[0]}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$whl" "$tmp" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith(("flashinfer/data/include/", "flashinfer/data/cutlass/include/",
                     "flashinfer/data/cutlass/tools/util/include/", "flashinfer/data/cccl/")):
        z.extract(n, sys.argv[2])
# nv_internal: the include closure of its fp8_blockscale_gemm.cu (nvcc -M) and the
# logger and exception sources that code calls: 27 of the 3.4 MB csrc/nv_internal's files
nvi = "flashinfer/data/csrc/nv_internal/"
files = (["tensorrt_llm/common/cudaDriverWrapper.h"] +
         ["tensorrt_llm/deep_gemm/%s.cuh" % f for f in (
             "compiler", "fp8_gemm", "fp8_gemm_impl", "jit_utils", "mma_utils", "runtime",
             "scheduler", "tma_utils", "utils")] +
         ["include/tensorrt_llm/common/%s.h" % f for f in (
             "assert", "cudaBf16Wrapper", "cudaFp8Utils", "cudaUtils", "logger", "stringUtils",
             "tllmException")] +
         ["cpp/common/%s.cpp" % f for f in ("logger", "stringUtils", "tllmException")])
for n in z.namelist():
    rel = n[len(nvi):]
    if n.startswith(nvi) and (rel in files or rel.startswith(
            "tensorrt_llm/kernels/cutlass_kernels/fp8_blockscale_gemm/")):
        z.extract(n, sys.argv[2])
PY
rm -rf $T/flashinfer $T/cutlass; mkdir -p $T/flashinfer $T/cutlass
mv "$tmp"/flashinfer/data/include $T/flashinfer/include
mv "$tmp"/flashinfer/data/cccl $T/flashinfer/cccl
mv "$tmp"/flashinfer/data/cutlass/include $T/cutlass/include
mkdir -p $T/cutlass/tools/util
mv "$tmp"/flashinfer/data/cutlass/tools/util/include $T/cutlass/tools/util/include
mv "$tmp"/flashinfer/data/csrc/nv_internal $T/flashinfer/nv_internal
echo "$V" > $stamp
echo "atrex: $T/flashinfer/{include,cccl,nv_internal} and $T/cutlass/{include,tools/util/include} from flashinfer-python $V ($(du -sh $T | cut -f1))"
