#!/usr/bin/env bash
# A sweep run as 4 shards under GNU parallel gives the same per-point results, and the same
# merged table, as the same sweep run in one process with --jobs 2; nothing lost, nothing
# duplicated.
#
#   tests/sweep/parallel_test.sh RINGSIM SPEC
#
# RINGSIM: the binary whose `sweep` and `merge` run (ringsim itself, or the stand-in
# tests/sweep/fake-ringsim.sh). The shards run as the README shows:
#   parallel ringsim sweep SPEC --out DIR --shard {}/4 ::: 0 1 2 3
# Exit 77 (skipped) only when GNU parallel or jq is missing and cannot be installed.
# SWEEP_TEST_BUDGET bounds the whole test in seconds (default 240).
set -euo pipefail
(($# == 2)) || { echo "usage: $0 RINGSIM SPEC" >&2; exit 2; }
# shellcheck source=tests/sweep/lib.sh
source "$(dirname "$0")/lib.sh"
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
RINGSIM=$(abspath "$1")
SPEC=$(abspath "$2")
SHARDS=4

need_packages parallel jq
[[ -x $RINGSIM ]] || fail "$RINGSIM is not executable"

tmp=$(mktemp -d /tmp/ringsim-parallel-test.XXXXXX)
# shellcheck disable=SC2154 # rc is set in the trap itself
trap 'rc=$?; if [[ ${SWEEP_TEST_KEEP:-0} == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi; exit $rc' EXIT
trap 'exit 130' INT TERM

say "reference: $RINGSIM sweep $SPEC --jobs 2"
local_sweep "$RINGSIM" "$SPEC" "$tmp/local" --jobs 2
ref=$(reference_keys "$RINGSIM" "$SPEC" "$tmp/local")
say "reference: $(wc -l <<<"$ref") (point, replicate)"

say "parallel $RINGSIM sweep SPEC --out DIR --shard {}/$SHARDS ::: 0..$((SHARDS - 1))"
t0=$SECONDS
# Outside any Slurm job, like local_sweep, so only --shard says which shard.
bounded env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN \
  parallel --halt now,fail=1 -j 2 \
  "$RINGSIM" sweep "$SPEC" --out "$tmp/parallel-out" --shard {}/$SHARDS ::: $(seq 0 $((SHARDS - 1))) >>"$tmp/parallel.log" 2>&1 ||
  fail "a shard failed under GNU parallel:"$'\n'"$(tail -20 "$tmp/parallel.log")"
say "4 shards done in $((SECONDS - t0))s"
check_shard_files "$tmp/parallel-out" "$SHARDS" "shard"
check_same_as_local "$RINGSIM" "$tmp/local" "$tmp/parallel-out" "$ref" "parallel"

# Rerunning the same command resumes: every point is done, nothing is added.
bounded env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN \
  parallel --halt now,fail=1 -j 2 \
  "$RINGSIM" sweep "$SPEC" --out "$tmp/parallel-out" --shard {}/$SHARDS ::: $(seq 0 $((SHARDS - 1))) >>"$tmp/parallel.log" 2>&1 ||
  fail "rerunning the shards failed:"$'\n'"$(tail -20 "$tmp/parallel.log")"
check_complete "$tmp/parallel-out" "$ref" "parallel, rerun (resumes, adds nothing)"

say "PASS"
