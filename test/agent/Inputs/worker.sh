#!/bin/sh
# A scripted atrex-gate-worker (batch protocol, docs/gate.md): the median and
# the attributed verdict come from the candidate's markers (FAKE_US=N,
# FAKE_VERDICT=V, FAKE_WRONG), which the stand-in nvcc left in the library.
job=$2
lib=$(sed -n 's/^ *"library": *"\(.*\)".*/\1/p' "$job")
read -r line
key=${line##* }
tr -d ' \n' < "$job" | sed 's/{"unit":/\n/g' | sed 1d > "$job.units"
us=$(sed -n 's/.*FAKE_US=\([0-9.]*\).*/\1/p' "$lib" | head -1)
verdict=$(sed -n 's/.*FAKE_VERDICT=\([a-z-]*\).*/\1/p' "$lib" | head -1)
while IFS= read -r u || [ -n "$u" ]; do
  unit=${u%%,*}
  if grep -q FAKE_WRONG "$lib"; then
    echo "$key {\"unit\":$unit,\"status\":\"fail\",\"stage\":\"correctness\",\"reason\":\"out: 12 of 64 elements differ\"}" >&3
    exit 0
  fi
  echo "$key {\"unit\":$unit,\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":${us:-100},\"p10_us\":${us:-100},\"p90_us\":${us:-100},\"reps\":10,\"mode\":\"eager\",\"side_stream_reps\":0,\"launch_gap_hidden\":true},\"attribution\":{\"available\":true,\"verdict\":\"${verdict:-adopted}\"}}" >&3
done < "$job.units"
