#!/bin/sh
# The scripted gate worker of Inputs/worker.sh (median, verdict, wrong output
# from the candidate's markers), whose attribution also names the own kernel
# the FAKE_KERNEL=NAME marker gives (and one of torch's, not own), as the
# real worker's attribution.kernels does: the profile's own-kernel rule.
job=$2
lib=$(sed -n 's/^ *"library": *"\(.*\)".*/\1/p' "$job")
read -r line
key=${line##* }
tr -d ' \n' < "$job" | sed 's/{"unit":/\n/g' | sed 1d > "$job.units"
us=$(sed -n 's/.*FAKE_US=\([0-9.]*\).*/\1/p' "$lib" | head -1)
verdict=$(sed -n 's/.*FAKE_VERDICT=\([a-z-]*\).*/\1/p' "$lib" | head -1)
kernel=$(sed -n 's/.*FAKE_KERNEL=\([A-Za-z0-9_]*\).*/\1/p' "$lib" | head -1)
kernels=
if [ -n "$kernel" ]; then
  torch='{"name":"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_","module_fnv1a64":"5a5a5a5a5a5a5a5a","own":false,"region":"correctness","launches":3,"image":"libtorch_cuda.so"}'
  own="{\"name\":\"$kernel\",\"module_fnv1a64\":\"0123456789abcdef\",\"own\":true,\"region\":\"correctness\",\"launches\":7,\"image\":\"sub.so\"}"
  timed="{\"name\":\"$kernel\",\"module_fnv1a64\":\"0123456789abcdef\",\"own\":true,\"region\":\"timed\",\"launches\":11,\"image\":\"sub.so\"}"
  kernels=",\"kernels\":[$torch,$own,$timed]"
fi
while IFS= read -r u || [ -n "$u" ]; do
  unit=${u%%,*}
  if grep -q FAKE_WRONG "$lib"; then
    echo "$key {\"unit\":$unit,\"status\":\"fail\",\"stage\":\"correctness\",\"reason\":\"out: 12 of 64 elements differ\"}" >&3
    exit 0
  fi
  echo "$key {\"unit\":$unit,\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":${us:-100},\"p10_us\":${us:-100},\"p90_us\":${us:-100},\"reps\":10,\"mode\":\"eager\",\"side_stream_reps\":0,\"launch_gap_hidden\":true},\"attribution\":{\"available\":true,\"verdict\":\"${verdict:-adopted}\"$kernels}}" >&3
done < "$job.units"
