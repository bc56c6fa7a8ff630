#!/bin/sh
# A stand-in nvcc: the "library" is the sources of the build directory (the
# gate's binding.cu beside submission.cu), so the scripted worker can read
# the candidate's markers; FAKE_COMPILE_ERROR fails the compile.
out= src=
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; *.cu) src=$1 ;; esac
  shift
done
dir=$(dirname "$src")
if cat "$dir"/*.cu | grep -q FAKE_COMPILE_ERROR; then
  echo "$dir/submission.cu(2): error: expected an expression" >&2; exit 1
fi
cat "$dir"/*.cu > "$out"
