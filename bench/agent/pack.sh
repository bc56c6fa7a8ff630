#!/usr/bin/env bash
# Packs atrex-agent with the LLVM and MLIR libraries it loads (the GPU
# machine has no LLVM) and the lint cache of the candidates the loop may
# propose (atrex-lint needs Clang: its reports are made here by
# `atrex-agent prelint`), into .agentpack/pack.tar.xz (git-ignored) for
# bench/agent/run-device.sh. libLLVM.so packs to about 27 MB, libMLIR.so to
# 16 MB: both fit the device tool's 64 MiB beside the checkout. The device has
# no libz3.so.4 (linked by libLLVM.so for the static analyzer, never called
# here): a stub of that name is packed instead (libLLVM.so binds lazily).
#   OPS="rms_norm gemm_bf16" EXTRA="examples/gate/gemm_bf16_at_matmul.cu" bash bench/agent/pack.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OPS=${OPS:-"rms_norm silu_and_mul gemm_bf16 paged_attention_decode"}
S=.agentpack/stage
rm -rf $S && mkdir -p $S/bin $S/lib
for op in $OPS; do
  build/bin/atrex-agent prelint --op "$op" --lint-cache .agentpack/lint-cache \
    --templates kb/templates "examples/sets/naive/$op.cu" ${EXTRA:-} | tail -1
done
cp -r .agentpack/lint-cache $S/lint-cache
cp build/bin/atrex-agent $S/bin/
for l in $(ldd build/bin/atrex-agent | awk '/=>/{print $3}' | grep -E '/lib(LLVM|MLIR)[.-]'); do
  cp -L "$l" $S/lib/
done
echo 'void atrex_z3_stub(void) {}' > .agentpack/z3stub.c
gcc -shared -fPIC -Wl,-soname,libz3.so.4 -o $S/lib/libz3.so.4 .agentpack/z3stub.c
tar -C $S -cf - . | xz -9e -T2 > .agentpack/pack.tar.xz
rm -rf $S .agentpack/z3stub.c # the device tool would carry the unpacked stage too
ls -la .agentpack/pack.tar.xz
