#!/usr/bin/env bash
# Packs a statically linked atrex-agent (the GPU machine has no LLVM) and
# the lint cache of the candidates the loop may propose (atrex-lint needs
# Clang: its reports are made here by `atrex-agent prelint`), into .agentpack/pack.tar.xz (git-ignored) for
# bench/agent/run-device.sh.
#   OPS="rms_norm gemm_bf16" EXTRA="examples/gate/gemm_bf16_at_matmul.cu" bash bench/agent/pack.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OPS=${OPS:-"rms_norm silu_and_mul gemm_bf16 paged_attention_decode"}
S=.agentpack/stage
rm -rf $S && mkdir -p $S/bin
for op in $OPS; do
  build/bin/atrex-agent prelint --op "$op" --lint-cache .agentpack/lint-cache \
    --templates kb/templates "examples/sets/naive/$op.cu" ${EXTRA:-} | tail -1
done
cp -r .agentpack/lint-cache $S/lint-cache
# The GPU machine has no LLVM: link atrex-agent statically against LLVM's and
# MLIR's archives (the dynamic build's link line with the two shared
# libraries swapped for the archives; --gc-sections keeps what is used):
# about 19 MB, 3 MB packed, where libLLVM.so and libMLIR.so were 43 MB packed
# and overran the device tool's 64 MiB.
L=/usr/lib/llvm-22/lib
link=$(cd build && ninja -t commands bin/atrex-agent | tail -1 | sed -e 's/^: && //' -e 's/ && :$//')
link=${link//"$L/libMLIR.so.22.1"/}
link=${link//"$L/libLLVM.so.1"/}
link=${link//"-o bin/atrex-agent"/"-o ../$S/bin/atrex-agent"}
(cd build && eval "$link -Wl,--gc-sections -Wl,--start-group $L/libMLIR[A-Z]*.a \
  $L/libLLVM[A-Z]*.a -Wl,--end-group -lz -lzstd -ltinfo -lpthread -ldl")
if ldd $S/bin/atrex-agent | grep -qE 'lib(LLVM|MLIR)'; then
  echo "pack.sh: atrex-agent still loads LLVM or MLIR shared libraries" >&2; exit 1
fi
$S/bin/atrex-agent --help >/dev/null
tar -C $S -cf - . | xz -9e -T2 > .agentpack/pack.tar.xz
rm -rf $S # the device tool would carry the unpacked stage too
ls -la .agentpack/pack.tar.xz
