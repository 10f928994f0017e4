#!/usr/bin/env bash
# A sweep on a real (private, single-node) Slurm cluster gives the same per-point results as
# the same sweep run locally, and a cancelled array task, resubmitted alone, loses nothing and
# duplicates nothing.
#
#   tests/sweep/slurm_test.sh RINGSIM SPEC [SLOW_SPEC]
#
# RINGSIM: the binary whose `sweep` and `merge` run (ringsim itself, or the stand-in
# tests/sweep/fake-ringsim.sh). SPEC: a small sweep. SLOW_SPEC (default SPEC): a sweep whose
# shards take a few seconds each (~0.5 s a point), so one array task can be cancelled mid-way.
#
# 1. runs SPEC locally with --jobs 2 (the reference);
# 2. starts a cluster (tools/slurm/cluster.sh) with ports and state of its own in a mktemp dir;
# 3. `sbatch --wait --array=0-3 tools/slurm/sweep.sbatch SPEC OUT`, then checks that the 4
#    shard files hold every (point, replicate) once, with the reference's results, and that
#    `ringsim merge` gives the reference's merged table;
# 4. submits SLOW_SPEC as a 4-task array, `scancel`s task 1 once it has written a point, lets
#    the others finish, checks the sweep is incomplete, resubmits task 1 alone
#    (`sbatch --array=1`, SHARDS=4; without SHARDS sweep.sbatch must refuse), and checks it is
#    then complete, nothing duplicated, results equal to a local run of SLOW_SPEC.
# The daemons it started are stopped whatever happens (EXIT trap). Exit 77 (skipped) only when
# the Slurm packages are missing and cannot be installed. SWEEP_TEST_BUDGET bounds the whole
# test in seconds (default 240); SWEEP_TEST_KEEP=1 keeps the temporary directory.
set -euo pipefail
(($# == 2 || $# == 3)) || { echo "usage: $0 RINGSIM SPEC [SLOW_SPEC]" >&2; exit 2; }
# shellcheck source=tests/sweep/lib.sh
source "$(dirname "$0")/lib.sh"
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
RINGSIM=$(abspath "$1")
SPEC=$(abspath "$2")
SLOW_SPEC=$(abspath "${3:-$2}")
CLUSTER=$SWEEP_SOURCE_DIR/tools/slurm/cluster.sh
SBATCH_SCRIPT=$SWEEP_SOURCE_DIR/tools/slurm/sweep.sbatch
SHARDS=4
K=1 # the array task that gets cancelled

need_packages munge slurmctld slurmd slurm-client jq
[[ -x $RINGSIM ]] || fail "$RINGSIM is not executable"

tmp=$(mktemp -d /tmp/ringsim-slurm-test.XXXXXX)
chmod 755 "$tmp" # munged wants every directory above its socket searchable
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -d $tmp/cluster ]]; then
    if ((rc != 0)); then
      echo "--- slurmctld.log (tail)"; tail -15 "$tmp/cluster/log/slurmctld.log" 2>/dev/null || true
      echo "--- slurmd.log (tail)"; tail -15 "$tmp/cluster/log/slurmd.log" 2>/dev/null || true
      for f in "$tmp"/logs/*.out; do [[ -e $f ]] && { echo "--- $f"; tail -5 "$f"; }; done
    fi
    timeout 60 "$CLUSTER" stop "$tmp/cluster" || echo "cluster.sh stop failed (rc $?)" >&2
  fi
  if [[ ${SWEEP_TEST_KEEP:-0} == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/logs"

say "reference: $RINGSIM sweep $SPEC --jobs 2 (locally)"
local_sweep "$RINGSIM" "$SPEC" "$tmp/local" --jobs 2
ref=$(reference_keys "$RINGSIM" "$SPEC" "$tmp/local")
say "reference: $(wc -l <<<"$ref") (point, replicate)"

say "starting the cluster"
t0=$SECONDS
bounded "$CLUSTER" start "$tmp/cluster" >/dev/null || fail "the cluster did not start"
export SLURM_CONF=$tmp/cluster/slurm.conf
say "cluster up in $((SECONDS - t0))s"
sinfo

# Common sbatch options: logs in tmp, the job runs in tmp.
sb=(sbatch --parsable --chdir="$tmp" --output="$tmp/logs/%A_%a.out")

say "sbatch --wait --array=0-$((SHARDS - 1)) sweep.sbatch SPEC OUT"
t0=$SECONDS
jid=$(bounded env RINGSIM="$RINGSIM" "${sb[@]}" --wait --array=0-$((SHARDS - 1)) \
  "$SBATCH_SCRIPT" "$SPEC" "$tmp/cluster-out") || fail "the array job failed (sbatch --wait)"
say "array job $jid done in $((SECONDS - t0))s"
check_shard_files "$tmp/cluster-out" "$SHARDS" "array task"
check_same_as_local "$RINGSIM" "$tmp/local" "$tmp/cluster-out" "$ref" "cluster"

# --- Cancel one array task mid-way, resubmit it alone.
say "reference: $RINGSIM sweep $SLOW_SPEC --jobs 2 (locally)"
local_sweep "$RINGSIM" "$SLOW_SPEC" "$tmp/slow-local" --jobs 2
slow_ref=$(reference_keys "$RINGSIM" "$SLOW_SPEC" "$tmp/slow-local")
out=$tmp/slow-out
shard_file=$out/points-$K-of-$SHARDS.jsonl

jid=$(bounded env SPEC="$SLOW_SPEC" OUT="$out" RINGSIM="$RINGSIM" \
  "${sb[@]}" --array=0-$((SHARDS - 1)) "$SBATCH_SCRIPT") || fail "sbatch failed"
say "array job $jid submitted; waiting for task $K to write a point"
# A task's state, from the controller's record (kept MinJobAge=600 s after it ends); empty
# when the controller did not answer.
task_state() { # JOB_TASK
  scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2 || true
}
while :; do
  st=$(task_state "${jid}_$K")
  [[ $st == RUNNING && -s $shard_file ]] && break
  [[ -z $st || $st == PENDING || $st == RUNNING || $st == CONFIGURING ]] ||
    fail "task $K is '$st' before it could be cancelled (too fast a SLOW_SPEC?)"
  remaining >/dev/null
  sleep 0.1
done
scancel "${jid}_$K"
say "cancelled task ${jid}_$K after $(wc -l <"$shard_file") line(s)"
# Let the other tasks finish (the cancelled one leaves the queue too).
while :; do
  queued=$(squeue -h -j "$jid" -o %i 2>/dev/null) && [[ -z $queued ]] && break
  remaining >/dev/null
  sleep 0.5
done
state=$(task_state "${jid}_$K")
[[ $state == CANCELLED ]] || fail "task $K ended as '$state', not cancelled"
for ((i = 0; i < SHARDS; i++)); do
  ((i == K)) && continue
  state=$(task_state "${jid}_$i")
  [[ $state == COMPLETED ]] || fail "task $i ended as '$state', not completed"
done
n_before=$(wc -l <"$shard_file")
done_before=$(done_keys "$out" | wc -l)
((done_before < $(wc -l <<<"$slow_ref"))) ||
  fail "the cancelled sweep is already complete: task $K was not cancelled mid-way"
say "after the cancel: $done_before of $(wc -l <<<"$slow_ref") done, $n_before in shard $K"

say "resubmitting task $K alone without SHARDS: sweep.sbatch must refuse (it would be 1 shard of 1)"
if bounded env SPEC="$SLOW_SPEC" OUT="$out" RINGSIM="$RINGSIM" \
  "${sb[@]}" --wait --array=$K "$SBATCH_SCRIPT" >/dev/null; then
  fail "sweep.sbatch ran a lone task without SHARDS in a directory of $SHARDS shards"
fi
[[ ! -e $out/points-0-of-1.jsonl ]] || fail "a lone task without SHARDS wrote points-0-of-1.jsonl"
(($(done_keys "$out" | wc -l) == done_before)) || fail "the refused task changed the shard files"

say "resubmitting task $K alone: sbatch --wait --array=$K (SHARDS=$SHARDS)"
jid2=$(bounded env SPEC="$SLOW_SPEC" OUT="$out" RINGSIM="$RINGSIM" SHARDS=$SHARDS \
  "${sb[@]}" --wait --array=$K "$SBATCH_SCRIPT") || fail "the resubmitted task failed"
say "job $jid2 done"
[[ $(ls "$out"/points-*-of-*.jsonl | wc -l) == "$SHARDS" ]] ||
  fail "expected only points-*-of-$SHARDS.jsonl files: $(ls "$out")"
(($(wc -l <"$shard_file") > n_before)) || fail "the resubmitted task added nothing"
check_same_as_local "$RINGSIM" "$tmp/slow-local" "$out" "$slow_ref" "cancelled and resubmitted"

say "PASS"
