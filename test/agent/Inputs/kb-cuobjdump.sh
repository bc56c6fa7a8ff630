#!/bin/sh
# A stand-in cuobjdump for kb-isa.test: `cuobjdump -sass CUBIN` prints
# $KB_SASS (default Inputs/kb-sass.txt) for the architecture the stand-in
# nvcc was given. Inputs/kb-sass-h200.txt is real: `cuobjdump -sass` of CUDA
# 13.0 on the H200 machine (2026-12-04), two small kernels (a 16-byte copy
# with a shuffle; one WMMA bf16 16x16x16 tile) built with nvcc -cubin
# -arch=sm_90a.
[ "$1" = -sass ] || { echo "usage: cuobjdump -sass FILE" >&2; exit 1; }
arch=$(tr ' ' '\n' < "$2" | sed -n 's/^-arch=//p')
sed "s/@ARCH@/$arch/" "${KB_SASS:-$(dirname "$0")/kb-sass.txt}"
