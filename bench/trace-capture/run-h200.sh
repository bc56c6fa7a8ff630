#!/usr/bin/env bash
# H200 run: capture the model traces (issue 6) and probe the timing method (issue 4).
# Writes under ${OUT:-out}: traces/*.json.gz, traces/capture.json, flush_probe.json,
# flush_probe_ncu.csv, log.txt.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT/traces"; log="$OUT/log.txt"
{
  echo "== $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'
  echo "== capture"
  t0=$SECONDS
  timeout 330 python3 bench/trace-capture/capture.py --out "$OUT/traces" 2>&1 | grep -v -E '^(USDT|STAGE)'
  echo "capture: exit ${PIPESTATUS[0]}, $((SECONDS - t0)) s"
  ls -la "$OUT/traces"
  for f in "$OUT"/traces/*-*.json; do python3 bench/trace-capture/slim.py "$f" "${f%.json}.slim.json.gz" && rm "$f"; done
  ls -la "$OUT/traces"
  echo "== flush probe"
  timeout 120 python3 bench/timing/flush_probe.py > "$OUT/flush_probe.json"
  echo "== flush probe under ncu"
  timeout 120 ncu --clock-control none --cache-control all -k regex:elementwise --metrics gpu__time_duration.sum \
    --csv python3 bench/timing/flush_probe.py --ncu > "$OUT/flush_probe_ncu.csv" 2>>"$OUT/ncu.err"
  timeout 120 ncu --clock-control none --cache-control none -k regex:elementwise --metrics gpu__time_duration.sum \
    --csv python3 bench/timing/flush_probe.py --ncu > "$OUT/flush_probe_ncu_nocache.csv" 2>>"$OUT/ncu.err"
  echo "== done $(date -u +%FT%TZ)"
} >>"$log" 2>&1
tail -40 "$log"
