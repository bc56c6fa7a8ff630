#!/bin/sh
# An example external agent for `atrex eval` (the command kind, docs/eval.md):
# it "writes" each operator's submission by copying it from a submission set
# of this repository, so that the evaluation runs end to end without a model.
#   atrex eval run ... --agent "naive-replay=command:sh examples/eval/set-agent.sh examples/sets/naive"
# What a real agent gets is the same: the card ($ATREX_AGENT_CARD, Markdown),
# the context ($ATREX_AGENT_CONTEXT, JSON: the operator, the previous turn's
# candidate and the lint's findings), and where to write the candidate
# ($ATREX_AGENT_CANDIDATE); token counts go to $ATREX_AGENT_TOKENS if known.
set -eu
set_dir=$1
op=$(sed -n 's/^ *"operator": *"\([A-Za-z0-9_]*\)".*/\1/p' "$ATREX_AGENT_CONTEXT" | head -1)
[ -f "$set_dir/$op.cu" ] || { echo "no $set_dir/$op.cu" >&2; exit 1; }
cp "$set_dir/$op.cu" "$ATREX_AGENT_CANDIDATE"
