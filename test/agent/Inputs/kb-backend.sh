#!/bin/sh
# A scripted backend for kb-loop.test: proposes the best kernel again (every
# iteration is rejected under --no-gate) and keeps each context's retrievals.
cp "$ATREX_AGENT_BEST" "$ATREX_AGENT_CANDIDATE"
