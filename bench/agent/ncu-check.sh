#!/usr/bin/env bash
# Checks atrex agent's default Nsight Compute metric set on the GPU machine
# (issue 17: names unconfirmed on Hopper) and re-runs the profiled gate of an
# `atrex agent profile` directory by hand with the plan's private_network off
# (the first H200 try hung in setup under ncu with it on): the exact ncu
# command of docs/agent.md. DIR is a profile directory left on the machine
# (plan-profile.json, gate-cache), KERNEL the own kernel's mangled name.
#   DIR=/tmp/eval-results/profile-rms KERNEL=_Z15rms_norm_kernelP13__nv_bfloat16PKS_S2_if \
#     OUT=$OUT bash bench/agent/ncu-check.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
G=${GATE:-/tmp/b/bin/atrex-gate}
stalls="long_scoreboard short_scoreboard barrier mio_throttle lg_throttle math_pipe_throttle wait not_selected no_instruction membar branch_resolving dispatch_stall"
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
M+=",dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed"
M+=",sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct"
M+=",launch__registers_per_thread,launch__block_size,launch__grid_size,launch__waves_per_multiprocessor"
M+=",sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
M+=",sm__sass_thread_inst_executed_op_fmul_pred_on.sum"
M+=",sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
[[ -n ${GMMA:-1} ]] && M+=",${GMMA_METRIC:-sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active}"
M+=",l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,smsp__sass_inst_executed_op_global_ld.sum"
for l in warps blocks registers shared_mem; do M+=",launch__occupancy_limit_$l"; done
for s in $stalls; do M+=",smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
{
  ncu --version | tail -1
  ncu --query-metrics --csv > /tmp/qm.csv 2>&1
  n=0; for m in ${M//,/ }; do n=$((n + 1)); b=${m%%.*}
    grep -q "\"$b\"" /tmp/qm.csv || echo "metric not in --query-metrics: $m"; done
  echo "checked $n metrics against $(wc -l < /tmp/qm.csv) lines of ncu --query-metrics"
  echo "tensor-pipe metrics this ncu lists:"; grep -io '"sm__pipe[a-z_]*tensor[a-z_]*"' /tmp/qm.csv | sort -u | head -20
  # A fresh machine: compile outside ncu (under ncu every nvcc is traced too).
  "$G" --quiet --compile-only --plan "$DIR/plan-profile.json" --out /tmp/none.jsonl --cache "$DIR/gate-cache"
  echo "compile: rc $?"
  python3 - "$DIR/plan-profile.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["settings"]["private_network"] = False
json.dump(p, open(sys.argv[1].replace(".json", "-nonet.json"), "w"), indent=2)
PY
  t0=$SECONDS
  ATREX_GATE_NO_ATTRIBUTION=1 timeout ${NCU_S:-200} ncu --csv --page raw --print-units base \
    --log-file "$OUT/profile.csv" --target-processes all --replay-mode kernel --clock-control none \
    --cache-control all --launch-skip 1 --launch-count 4 --kernel-name-base mangled \
    --print-kernel-base mangled --kernel-name "regex:^($KERNEL)\$" --metrics "$M" \
    "$G" --quiet --plan "$DIR/plan-profile-nonet.json" --out "$OUT/profile-gate.jsonl" \
    --cache "$DIR/gate-cache" > "$OUT/ncu.out" 2> "$OUT/ncu.err"
  echo "ncu: rc $?, $((SECONDS - t0)) s; $(grep -c '^"' "$OUT/profile.csv" 2>/dev/null) CSV rows"
  tail -3 "$OUT/ncu.err"; tail -3 "$OUT/ncu.out"
  python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r['status'], r['stage'], r.get('reason','')[:300])" "$OUT/profile-gate.jsonl"
} 2>&1 | tee "$OUT/ncu-check.log"
