#!/bin/sh
# A stand-in nvcc for kb-isa.test: the "cubin" is the command line; a source
# holding FAKE_COMPILE_ERROR fails to compile.
out= src=
for a in "$@"; do
  case $prev in -o) out=$a ;; esac
  case $a in *.cu) src=$a ;; esac
  prev=$a
done
if grep -q FAKE_COMPILE_ERROR "$src"; then
  echo "$src(3): error: identifier \"__hadd3\" is undefined" >&2; exit 2
fi
echo "$@" > "$out"
