#!/bin/sh
# A scripted external agent for `atrex eval` (command kind), in three modes:
#   honest   copies the naive set's kernel of the card's operator
#   learner  turn 1: a torch fallback; later turns, once the context's history
#            holds a finding (a verdict other than adopted): the naive kernel
#   python   a Python submission of the project's examples (--lang python)
#   silent   writes nothing (no candidate)
# It records what it was handed (the environment's ATREX_* variables and
# every file of its turn directory) in $LEAK_LOG, for the leak check, and
# reports token counts through the sidecar.
mode=$1 root=$2
op=$(sed -n 's/^ *"operator": *"\([a-z0-9_]*\)".*/\1/p' "$ATREX_AGENT_CONTEXT" | head -1)
{ env | grep '^ATREX_'; for f in "$ATREX_AGENT_DIR"/*; do echo "== $f"; cat "$f"; done; } >> "$LEAK_LOG"
echo "{\"tokens_in\": 1000, \"tokens_out\": 200}" > "$ATREX_AGENT_TOKENS"
case $mode in
  # FAKE_US: the scripted gate worker's median for this kernel (test/agent/Inputs/worker.sh)
  honest) { cat "$root/examples/sets/naive/$op.cu"; echo "// FAKE_US=400"; } > "$ATREX_AGENT_CANDIDATE" ;;
  learner)
    if grep -q '"kind": "[a-z]' "$ATREX_AGENT_CONTEXT"; then
      { cat "$root/examples/sets/naive/$op.cu"; echo "// FAKE_US=800"; } > "$ATREX_AGENT_CANDIDATE"
    else
      cat > "$ATREX_AGENT_CANDIDATE" <<'CU'
#include <torch/extension.h>
void rms_norm(torch::Tensor& out, const torch::Tensor& x, const torch::Tensor& w, double eps) {
  auto xf = x.to(torch::kFloat);
  out.copy_((xf * torch::rsqrt(xf.pow(2).mean(-1, true) + eps)).to(x.scalar_type()) * w);
}
CU
    fi ;;
  # python: the project's Python examples (GPU MODE Triton, KernelBench load_inline)
  python)
    case $op in
      rms_norm) cp "$root/examples/gate/python/rms_norm_triton_gpumode.py" "$ATREX_AGENT_CANDIDATE" ;;
      silu_and_mul) cp "$root/examples/gate/python/silu_and_mul_kernelbench_inline.py" "$ATREX_AGENT_CANDIDATE" ;;
    esac ;;
  silent) exit 0 ;;
esac
exit 0
