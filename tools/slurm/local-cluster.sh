#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, in a folder of its own, for the
# tests of tools/slurm/'s scripts (tests/slurm/) and for trying them out:
#
#   tools/slurm/local-cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   tools/slurm/local-cluster.sh stop DIR
#
# start installs Debian's slurmctld, slurmd, slurm-client and munge if they
# are missing (apt-get, as root), writes DIR/slurm.conf for this host (its
# cores, one partition, no accounting, no cgroups: a test machine or a
# container has none to give), starts munged on its own socket, slurmctld and
# slurmd, each with its state, logs and pid file in DIR and on free ports, and
# waits until the node is idle. Nothing outside DIR is configured or
# stopped: the daemons find the cluster through SLURM_CONF, on ports and a
# munge socket of their own, so a real cluster's daemons and configuration
# on the same machine are neither read nor touched. stop ends the three
# daemons and waits for them; a pid file that names another process (the
# daemon ended, its number reused) is removed, that process left alone. Jobs run as the user who submits them, which
# slurmd can do only as root.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
command=$1
dir=$(realpath -m "$2")

# Whether process $1 is this cluster's daemon $2: a pid file left by a
# cluster that ended without stop (a killed test, a reboot) may name a
# number the system has since given to an unrelated process. The daemon's
# name must match, and munged must have been started with DIR's pid file,
# slurmctld and slurmd with DIR's slurm.conf.
ours() {
  local pid=$1 daemon=$2
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$daemon" ] || return 1
  if [ "$daemon" = munged ]; then
    tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--pid-file=$dir/munged.pid"
  else
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$dir/slurm.conf"
  fi
}

stop() {
  local pid
  for daemon in slurmd slurmctld munged; do
    [ -f "$dir/$daemon.pid" ] || continue
    pid=$(cat "$dir/$daemon.pid")
    if ! ours "$pid" "$daemon"; then
      echo "$0: $dir/$daemon.pid names process '$pid', which is not this cluster's $daemon" \
        "(it has ended): not signalled" >&2
      rm -f "$dir/$daemon.pid"
      continue
    fi
    kill "$pid" 2>/dev/null || true
    # slurmctld saves its state on SIGTERM: give it the time it takes
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if ours "$pid" "$daemon"; then kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$dir/$daemon.pid"
  done
}

start() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "$0: slurmd runs jobs as their users, which needs root: run this as root" >&2
    exit 2
  fi
  local missing=()
  for package in slurmctld slurmd slurm-client munge; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 755 "$dir" "$dir/munge"  # munged's socket must be reachable by every user
  local host cpus ports
  host=$(hostname -s)
  cpus=$(nproc --all)
  # two free TCP ports, for slurmctld and slurmd
  ports=$(/usr/bin/python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))')
  read -r controller_port node_port <<<"$ports"
  cat >"$dir/slurm.conf" <<EOF
# A one-node cluster for tests (tools/slurm/local-cluster.sh)
ClusterName=pfmab-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  munged --force --socket="$dir/munge/munge.socket" --key-file=/etc/munge/munge.key \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
  slurmctld -i  # -i: no state from an earlier cluster in DIR
  slurmd
  local state=""
  for _ in $(seq 600); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.1
  done
  if [ "$state" != idle ]; then
    echo "$0: the node did not come up within a minute (state '$state'); logs in $dir" >&2
    tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    stop
    exit 1
  fi
  echo "export SLURM_CONF=$dir/slurm.conf"
}

case $command in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
