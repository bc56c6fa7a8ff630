#!/bin/sh
# A stand-in cuobjdump for kb-isa.test: `cuobjdump -sass CUBIN` prints
# Inputs/kb-sass.txt for the architecture the stand-in nvcc was given.
[ "$1" = -sass ] || { echo "usage: cuobjdump -sass FILE" >&2; exit 1; }
arch=$(tr ' ' '\n' < "$2" | sed -n 's/^-arch=//p')
sed "s/@ARCH@/$arch/" "$(dirname "$0")/kb-sass.txt"
