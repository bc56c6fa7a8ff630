#!/usr/bin/env bash
# Regenerates the default suite's trace-derived importance weights from the
# committed H200 traces (issue 6):
#   bench/results/traces-2026-11-29/*.slim.json.gz  (+ fleet.yaml)
#   -> suites/atrex-serve/weights-trace.json        (atrex-weights v1)
#   -> bench/results/traces-2026-11-29/summary.txt  (the ingest summary)
# Usage: scripts/regen-weights.sh [OUT.json]   (default: the file above)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${ATREX_BIN:-$ROOT/build/bin}
TR=$ROOT/bench/results/traces-2026-11-29
OUTF=${1:-$ROOT/suites/atrex-serve/weights-trace.json}
SUMMARY=${ATREX_SUMMARY:-$TR/summary.txt}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
for f in "$TR"/*.slim.json.gz; do
  gunzip -c "$f" > "$TMP/$(basename "$f" .slim.json.gz).json"
done
"$BIN/atrex-trace" ingest --map "$ROOT/suites/atrex-serve/trace-map.yaml" \
  --fleet "$TR/fleet.yaml" --coverage 0.9 "$TMP"/*.json -o "$OUTF" > "$SUMMARY.tmp"
sed "s|$TMP/||g" "$SUMMARY.tmp" > "$SUMMARY"; rm -f "$SUMMARY.tmp"
cat "$SUMMARY" >&2
