#!/bin/sh
# A scripted command backend: iteration N copies cands/N.cu to the candidate
# file; cands/N.crash makes it die on a signal, no cands/N.cu writes nothing.
# It reports token counts through the sidecar, and keeps each context.
d=$(dirname "$0")/cands
i=$ATREX_AGENT_ITERATION
[ -f "$d/$i.crash" ] && kill -SEGV $$
echo "{\"tokens_in\": $((i * 100)), \"tokens_out\": $((i * 10))}" > "$ATREX_AGENT_TOKENS"
[ -f "$d/$i.cu" ] && cp "$d/$i.cu" "$2"
exit 0
