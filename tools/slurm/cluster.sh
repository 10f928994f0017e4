#!/usr/bin/env bash
# A private single-node Slurm cluster for tests and for trying tools/slurm/sweep.sbatch on one
# machine: its own munge daemon (own key, own socket), its own slurm.conf, its own ports, state,
# spool, pid and log files, all under STATE_DIR. Nothing in /etc is used or changed, and no
# system-wide munged/slurmctld/slurmd is touched.
#
#   tools/slurm/cluster.sh start  STATE_DIR   # prints the SLURM_CONF to export for sbatch & co.
#   tools/slurm/cluster.sh status STATE_DIR   # the daemons' pids and `sinfo`; exit 1 if down
#   tools/slurm/cluster.sh stop   STATE_DIR   # cancels its jobs, stops exactly the daemons it
#                                             # started (the pids it recorded), never by name
#   tools/slurm/cluster.sh env    STATE_DIR   # prints `export SLURM_CONF=...`
#
# Runs as root (munged, slurmctld and slurmd are started as root: SlurmUser=root), with the
# Debian 12 packages munge, slurmctld, slurmd and slurm-client (tools/setup.sh installs them).
# Needs no cgroups: proctrack/linuxproc, task/none, jobacct_gather/none.
# `start` waits (at most CLUSTER_START_TIMEOUT seconds, 60 by default) until `sinfo` shows the
# node idle; if anything fails on the way it stops what it had started and exits non-zero.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|status|env STATE_DIR" >&2
  exit 2
}
(($# == 2)) || usage
cmd=$1
mkdir -p "$2"
state=$(cd "$2" && pwd -P)
conf=$state/slurm.conf
pids=$state/pids
start_timeout=${CLUSTER_START_TIMEOUT:-60}
[[ $start_timeout =~ ^[0-9]+$ ]] || { echo "cluster: CLUSTER_START_TIMEOUT must be whole seconds" >&2; exit 2; }

log() { echo "cluster: $*" >&2; }

# A pid recorded in pids/NAME, when that process is alive (a zombie is not) and is still the
# command we started (its command line mentions STATE_DIR), so a recycled pid is never touched.
live_pid() {
  local f=$pids/$1 pid st
  [[ -s $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $st != Z && $st != X ]] || return 1
  { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$state" || return 1
  echo "$pid"
}

# Ends the process recorded in pids/NAME: SIGTERM, then SIGKILL after 10 s.
stop_one() {
  local name=$1 pid i
  pid=$(live_pid "$name") || { rm -f "$pids/$name"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    live_pid "$name" >/dev/null || break
    sleep 0.1
  done
  if live_pid "$name" >/dev/null; then
    log "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$pids/$name"
  log "stopped $name (pid $pid)"
}

# slurmstepd processes of this cluster's jobs: they carry SLURM_CONF=<our conf> in their
# environment (slurmd passes it on). Used only when scancel left some behind.
our_stepds() {
  local d p
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [[ $(cat "$d/comm" 2>/dev/null) == slurmstepd ]] || continue
    { tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf" && echo "$p"
  done
  return 0
}

stop_all() {
  # Jobs first, while the controller and slurmd can still end them cleanly.
  if live_pid slurmctld >/dev/null && live_pid slurmd >/dev/null; then
    SLURM_CONF=$conf timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do
      [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null || true) ]] && break
      sleep 0.2
    done
  fi
  # What scancel could not end (the controller was down): each step daemon of ours and the
  # job's processes, which share its session.
  local stepd sid d victims=()
  for stepd in $(our_stepds); do
    sid=$(awk '{print $6}' "/proc/$stepd/stat" 2>/dev/null) || continue
    victims+=("$stepd")
    for d in /proc/[0-9]*; do
      [[ $(awk '{print $6}' "$d/stat" 2>/dev/null) == "$sid" ]] && victims+=("${d#/proc/}")
    done
  done
  if ((${#victims[@]})); then
    log "killing the job processes scancel left: ${victims[*]}"
    kill -KILL "${victims[@]}" 2>/dev/null || true
  fi
  stop_one slurmd
  stop_one slurmctld
  stop_one munged
}

# A TCP port on 127.0.0.1 that nothing listens on and that differs from $1 (if given).
free_port() {
  local avoid=${1:-0} p i
  for ((i = 0; i < 200; i++)); do
    p=$((20000 + RANDOM % 40000))
    ((p != avoid)) || continue
    if command -v ss >/dev/null; then
      ss -Htan "sport = :$p" 2>/dev/null | grep -q . && continue
    else
      (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    fi
    echo "$p"
    return 0
  done
  log "found no free port"
  return 1
}

check_packages() {
  local p missing=()
  for p in munge slurmctld slurmd slurm-client; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "missing Debian packages: ${missing[*]} (run tools/setup.sh)"
    return 1
  fi
  if [[ $(id -u) -ne 0 ]]; then
    log "must run as root (munged and the Slurm daemons run as root here)"
    return 1
  fi
}

# Runs a daemon in the foreground of a background job, so $! is its pid; stdio goes to its log.
launch() {
  local name=$1 pid i
  shift
  setsid "$@" </dev/null >>"$state/log/$name.out" 2>&1 &
  pid=$!
  echo "$pid" >"$pids/$name"
  # Until it has exec'd the daemon, the child is a copy of this shell, whose command line
  # does not name $state: live_pid would take a loaded machine's slow exec for a death
  # (seen in CI). Wait for the daemon's command line, a bounded while.
  for ((i = 0; i < 100; i++)); do
    live_pid "$name" >/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 0 # it died: the start's checks say so
    sleep 0.05
  done
}

start_all() {
  check_packages
  if live_pid slurmctld >/dev/null || live_pid slurmd >/dev/null || live_pid munged >/dev/null; then
    log "a cluster is already running in $state (stop it first)"
    return 1
  fi
  local t0=$SECONDS
  rm -rf "$state/munge" "$state/ctld" "$state/spool" "$state/log" "$pids"
  mkdir -p "$state/munge" "$state/ctld" "$state/spool" "$state/log" "$pids"
  # munged wants its socket directory searchable by all and nothing writable by others.
  chmod 755 "$state" "$state/munge"

  # munge: a fresh key of its own, its own socket.
  mungekey --create --force --keyfile="$state/munge/munge.key" --bits=1024 2>/dev/null
  chmod 600 "$state/munge/munge.key"
  local sock=$state/munge/munge.socket
  launch munged munged --foreground --force --socket="$sock" \
    --key-file="$state/munge/munge.key" --pid-file="$state/munge/munged.pid" \
    --seed-file="$state/munge/munged.seed" --log-file="$state/log/munged.log"
  local i
  for ((i = 0; i < 100; i++)); do
    munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
    live_pid munged >/dev/null || { log "munged exited:"; cat "$state/log/munged.out" >&2; return 1; }
    sleep 0.1
  done
  munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 ||
    { log "munged does not answer on $sock"; return 1; }

  # slurm.conf: the node as slurmd sees this machine (CPUs, sockets, cores, memory).
  local ctld_port slurmd_port node host hw mem
  ctld_port=$(free_port)
  slurmd_port=$(free_port "$ctld_port")
  host=$(hostname -s)
  node=$host
  hw=$(slurmd -C 2>/dev/null | head -1)
  [[ $hw == NodeName=* ]] || { log "slurmd -C printed no node line: $hw"; return 1; }
  hw=${hw#NodeName=* }
  # A little below what is there, so slurmd never finds less memory than configured.
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
  hw=$(sed 's/ *RealMemory=[0-9]*//' <<<"$hw")
  mem=$((mem > 1024 ? mem - 256 : mem))
  cat >"$conf" <<EOF
# Written by tools/slurm/cluster.sh: a private single-node cluster; everything under $state.
ClusterName=ringsim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/ctld/slurmctld.pid
SlurmdPidFile=$state/spool/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmSchedLogFile=$state/log/sched.log
# No cgroups needed (containers and sandboxes often have none usable).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$host $hw RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  launch slurmctld slurmctld -D -f "$conf"
  launch slurmd slurmd -D -f "$conf" -N "$node"

  # Bounded wait until the node is idle.
  local st=""
  while ((SECONDS - t0 < start_timeout)); do
    live_pid slurmctld >/dev/null ||
      { log "slurmctld exited:"; tail -20 "$state/log/slurmctld.out" >&2; return 1; }
    live_pid slurmd >/dev/null ||
      { log "slurmd exited:"; tail -20 "$state/log/slurmd.out" >&2; return 1; }
    st=$(SLURM_CONF=$conf timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [[ $st == idle ]] && break
    sleep 0.2
  done
  if [[ $st != idle ]]; then
    log "node $node not idle after ${start_timeout}s (state: '${st:-no answer}'); logs in $state/log"
    local f
    for f in "$state/log/slurmctld.out" "$state/log/slurmd.out"; do
      [[ -s $f ]] && { echo "--- $f (last lines)"; tail -n 5 "$f"; } >&2
    done
    return 1
  fi
  log "up in $((SECONDS - t0))s: node $node idle, slurmctld port $ctld_port, slurmd port $slurmd_port"
  echo "SLURM_CONF=$conf"
}

case $cmd in
start)
  ok=0
  trap '((ok)) || stop_all' EXIT
  trap 'exit 130' INT TERM
  # A port found free can be taken by someone else before the daemon binds it: then again,
  # with other ports (at most 3 times).
  # (A subshell, so that `set -e` holds inside start_all: it would not in an `if`.)
  for attempt in 1 2 3; do
    set +e
    (start_all)
    rc=$?
    set -e
    if ((rc == 0)); then
      ok=1 # read by the EXIT trap
      break
    fi
    grep -qs "Address already in use" "$state"/log/*.out "$state"/log/*.log || exit 1
    log "a port was taken meanwhile (attempt $attempt); again with other ports"
    stop_all
  done
  ((ok)) || exit 1
  ;;
stop)
  stop_all
  ;;
status)
  up=1
  for d in munged slurmctld slurmd; do
    if pid=$(live_pid $d); then echo "$d: pid $pid"; else echo "$d: not running"; up=0; fi
  done
  ((up)) && SLURM_CONF=$conf timeout 10 sinfo
  ((up))
  ;;
env)
  echo "export SLURM_CONF=$conf"
  ;;
*) usage ;;
esac
