#!/usr/bin/env bash
# A one-node Slurm for tests: munged, slurmctld and slurmd on this machine,
# with every file (configuration, munge key and socket, state, spool, logs,
# pid files) under one directory of the caller's.
#
#   slurm-local.sh start DIR [GPUS]   write DIR/etc/slurm.conf etc., start the
#                                     daemons, wait until the node is idle;
#                                     prints "SLURM_CONF=DIR/etc/slurm.conf"
#   slurm-local.sh stop DIR           stop the daemons started in DIR (by the
#                                     pids in DIR/run), remove nothing else
#
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and
# munge (scripts/install-deps.sh). The node offers GPUS (default 4) generic
# resources "gpu" whose device files are links to /dev/null (Slurm's gpu
# plugin drops a GPU without a character device), so `--gres=gpu:1` jobs
# schedule on a machine without GPUs and get CUDA_VISIBLE_DEVICES. Ports are
# picked free at start. Exit status of start: 0 when the node is idle, 1
# otherwise (the reason and the logs' tails on stderr, the daemons stopped).
set -uo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [GPUS]" >&2; exit 2; }

stop() {
  local pidf pid
  # Jobs first (this cluster's only: SLURM_CONF is ours), so that no
  # slurmstepd outlives its slurmd.
  if [ -f "$dir/etc/slurm.conf" ] && [ -f "$dir/run/slurmctld.pid" ]; then
    export SLURM_CONF="$dir/etc/slurm.conf"
    scancel --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 1 50); do
      [ -z "$(squeue --noheader --format=%i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for d in slurmd slurmctld munged; do
    pidf="$dir/run/$d.pid"
    [ -f "$pidf" ] || continue
    pid=$(cat "$pidf" 2>/dev/null)
    if [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$pidf"
  done
  return 0
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR [GPUS]" >&2; exit 2; }

gpus=${3:-4}
fail() {
  echo "slurm-local: $*" >&2
  for f in "$dir"/log/*.log; do
    [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
  done
  stop
  exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (slurmd starts jobs as their users)"
for t in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin:/sbin
  command -v "$t" >/dev/null || fail "'$t' not found (Debian: slurm-wlm, munge; scripts/install-deps.sh)"
done

dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
mkdir -p "$dir"/{etc,run,log,state,spool,munge,dev}
chmod 0755 "$dir/munge"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
host=$(hostname -s)
cpus=$(nproc)
[ "$cpus" -lt "$gpus" ] && cpus=$gpus

# munge: a fresh key of our own; the daemon's socket in DIR.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none || fail "cannot write a munge key"
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 ||
  fail "munged did not start: $(cat "$dir/log/munged.out")"

cat > "$dir/etc/slurm.conf" <<CONF
# Written by slurm-local.sh: one node, no accounting, no cgroups.
ClusterName=atrex-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=2
MinJobAge=600
InactiveLimit=0
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 Gres=gpu:$gpus State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
for i in $(seq 0 $((gpus - 1))); do ln -sfn /dev/null "$dir/dev/gpu$i"; done
cat > "$dir/etc/gres.conf" <<CONF
NodeName=$host Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]
CONF
export SLURM_CONF="$dir/etc/slurm.conf"

slurmctld -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 || fail "slurmctld did not start"
slurmd -N "$host" -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 || fail "slurmd did not start"

for _ in $(seq 1 60); do
  state=$(sinfo --noheader --format=%T 2>/dev/null | head -n1)
  case "$state" in
    idle*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;;
  esac
  sleep 0.5
done
fail "the node did not become idle within 30 s (sinfo: '${state:-no answer}')"
