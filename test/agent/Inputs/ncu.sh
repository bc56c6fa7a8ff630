#!/bin/sh
# A stand-in Nsight Compute (ncu): records its arguments and the gate's
# ATREX_GATE_NO_ATTRIBUTION in ncu-args.txt beside its --log-file, runs the
# application (the gate on the profile plan, its exit status recorded), and
# then writes the recorded raw CSV that the candidate's FAKE_NCU=NAME marker
# names (Inputs/ncu/NAME.csv) to the log file, as ncu --log-file does.
# FAKE_NCU=perm: ncu's performance-counter permission error; FAKE_NCU=none
# (or no marker): no kernel profiled.
d=$(dirname "$0")/ncu
log= plan= prev= app=0
for a in "$@"; do
  case $prev in --log-file) log=$a ;; --plan) plan=$a ;; esac
  prev=$a
done
out=$(dirname "$log")/ncu-args.txt
{ echo "ATREX_GATE_NO_ATTRIBUTION=$ATREX_GATE_NO_ATTRIBUTION"; for a in "$@"; do echo "$a"; done; } > "$out"
# The application: everything after the value of --metrics.
while [ $# -gt 0 ]; do
  case $1 in --metrics) shift 2; break ;; esac
  shift
done
"$@" > /dev/null 2>&1; echo "application exit status $?" >> "$out"
src=$(sed -n 's/^ *"source": *"\(.*\)".*/\1/p' "$plan" | head -1)
name=$(sed -n 's/.*FAKE_NCU=\([a-z-]*\).*/\1/p' "$src" | head -1)
case $name in
  perm)
    echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM" > "$log"
    exit 1 ;;
  none|'')
    echo "==WARNING== No kernels were profiled." > "$log" ;;
  *) cat "$d/$name.csv" > "$log" ;;
esac
exit 0
