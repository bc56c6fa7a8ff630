#!/bin/sh
# The scripted gate worker of search-directions.test: the median comes from
# the instance's configuration (// atrex-search: rms_norm/FAMILY CONFIG)
# through the table below (a source that is no instance: 100 us), and the
# attribution names the own kernel of the FAKE_KERNEL marker, as
# Inputs/profile-worker.sh does, so that the stand-in ncu profiles it.
job=$2
lib=$(sed -n 's/^ *"library": *"\(.*\)".*/\1/p' "$job")
read -r line
key=${line##* }
tr -d ' \n' < "$job" | sed 's/{"unit":/\n/g' | sed 1d > "$job.units"
cfg=$(sed -n 's|^// atrex-search: rms_norm/||p' "$lib" | head -1)
case $cfg in
  "gamma A=1 W=1 R=1") us=50 ;; "gamma A=1 W=1 R=2") us=40 ;;
  "gamma A=1 W=2 R=2") us=30 ;; "gamma A=1 W=4 R=2") us=35 ;;
  "gamma A=2 W=2 R=2") us=33 ;; "delta P=1") us=45 ;; *) us=100 ;;
esac
kernel=$(sed -n 's/.*FAKE_KERNEL=\([A-Za-z0-9_]*\).*/\1/p' "$lib" | head -1)
kernels=
if [ -n "$kernel" ]; then
  own="{\"name\":\"$kernel\",\"module_fnv1a64\":\"0123456789abcdef\",\"own\":true,\"region\":\"timed\",\"launches\":11,\"image\":\"sub.so\"}"
  kernels=",\"kernels\":[$own]"
fi
while IFS= read -r u || [ -n "$u" ]; do
  unit=${u%%,*}
  echo "$key {\"unit\":$unit,\"status\":\"pass\",\"stage\":\"done\",\"performance\":{\"median_us\":$us,\"p10_us\":$us,\"p90_us\":$us,\"reps\":10,\"mode\":\"eager\",\"side_stream_reps\":0,\"launch_gap_hidden\":true},\"attribution\":{\"available\":true,\"verdict\":\"adopted\"$kernels}}" >&3
done < "$job.units"
