#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for the sharded-run test (crates/bench/tests/slurm.rs):
#
#   scripts/ci/slurm-cluster.sh start DIR   # writes DIR/slurm.conf, starts munged, slurmctld, slurmd
#   scripts/ci/slurm-cluster.sh stop DIR    # stops what `start DIR` started
#
# Everything the cluster writes (its configuration, state, spool, logs, pid files) is under DIR,
# and the commands find the configuration through SLURM_CONF=DIR/slurm.conf, so nothing under
# /etc/slurm is read or changed. Needs root, Debian's slurmctld, slurmd, slurm-client and munge
# (the munge package creates /etc/munge/munge.key). A minimal configuration: proctrack/linuxproc
# and task/none (no cgroups needed), select/cons_tres, no accounting database.
set -euo pipefail

action="${1:-}"
dir="${2:-}"
if [ -z "$action" ] || [ -z "$dir" ]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
export SLURM_CONF="$dir/slurm.conf"

stop() {
    for daemon in slurmd slurmctld munged; do
        if [ -f "$dir/$daemon.pid" ]; then
            pid="$(cat "$dir/$daemon.pid")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
            rm -f "$dir/$daemon.pid"
        fi
    done
}

start() {
    local host cpus memory
    host="$(hostname -s)"
    cpus="$(nproc)"
    memory="$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    cat > "$SLURM_CONF" <<CONF
ClusterName=rfbench-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=1024
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    # munged: our own socket, pid and log under DIR, the package's key.
    munged --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
        --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" --force
    # The SLURM daemons and clients find munged through its socket.
    echo "AuthInfo=socket=$dir/munge/munge.socket" >> "$SLURM_CONF"
    slurmctld
    slurmd
    for _ in $(seq 100); do
        if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "SLURM is up on $host ($cpus CPUs, $memory MB): export SLURM_CONF=$SLURM_CONF"
            return 0
        fi
        sleep 0.2
    done
    echo "SLURM did not come up; its logs:" >&2
    tail -n 20 "$dir"/*.log >&2 || true
    stop
    return 1
}

case "$action" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
