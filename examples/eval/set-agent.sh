#!/bin/sh
# An example external agent for `atrex eval` (the command kind, docs/eval.md):
# it "writes" each operator's submission by copying it from a submission set
# of this repository, so that the evaluation runs end to end without a model.
#   atrex eval run ... --agent "naive-replay=command:sh examples/eval/set-agent.sh examples/sets/naive"
#   atrex eval run ... --lang python \
#     --agent "py-replay=command:sh examples/eval/set-agent.sh examples/eval/python-agent.map"
# The source is a directory holding OP.cu or OP.py (the extension of the
# candidate asked for), or a map file of `OP=path` lines (paths relative to
# the repository root); an operator it has nothing for is a failed turn.
# What a real agent gets is the same: the card ($ATREX_AGENT_CARD, Markdown),
# the context ($ATREX_AGENT_CONTEXT, JSON: the operator, the previous turn's
# candidate and the lint's findings), and where to write the candidate
# ($ATREX_AGENT_CANDIDATE); token counts go to $ATREX_AGENT_TOKENS if known.
set -eu
src=$1
op=$(sed -n 's/^ *"operator": *"\([A-Za-z0-9_]*\)".*/\1/p' "$ATREX_AGENT_CONTEXT" | head -1)
ext=${ATREX_AGENT_CANDIDATE##*.}
if [ -d "$src" ]; then
  file=$src/$op.$ext
else
  file=$(sed -n "s/^$op=//p" "$src" | head -1)
fi
[ -n "$file" ] && [ -f "$file" ] || { echo "no $op.$ext in $src" >&2; exit 1; }
cp "$file" "$ATREX_AGENT_CANDIDATE"
