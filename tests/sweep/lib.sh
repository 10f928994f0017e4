# shellcheck shell=bash
# Shared by tests/sweep/slurm_test.sh and parallel_test.sh (sourced, not run).
# Output files follow the `ringsim sweep` contract: DIR/points-I-of-N.jsonl, one JSON object per
# finished (point, replicate) with "point", "replicate", "seed", "status", "stats", ...

SWEEP_SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export LC_ALL=C # one collation for sort, comm and uniq

say() { echo "[$(date -u +%H:%M:%S)] $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The deadline of the whole test: every long step runs under `bounded`, so the EXIT trap (which
# stops the daemons) always gets to run before ctest's own TIMEOUT.
DEADLINE=$((SECONDS + ${SWEEP_TEST_BUDGET:-240}))
remaining() {
  local r=$((DEADLINE - SECONDS))
  ((r > 0)) || fail "out of time (SWEEP_TEST_BUDGET=${SWEEP_TEST_BUDGET:-240}s)"
  echo "$r"
}
bounded() {
  local r
  r=$(remaining) || exit 1
  timeout --kill-after=5 "$r" "$@"
}

# The point ids of a spec, one per line, sorted: `ringsim sweep SPEC --list` prints one point per
# line, starting with its id. The one place that knows that format.
list_points() { # RINGSIM SPEC
  bounded "$1" sweep "$2" --list | awk 'NF && $1 !~ /^#/ { sub(/[:,]$/, "", $1); print $1 }' | sort
}

# Every line of DIR's shard files as "point<TAB>replicate", sorted (duplicates kept).
# A line that is not a JSON object (a torn write left behind) makes jq fail, and so the test.
done_keys() { # DIR
  local files=("$1"/points-*-of-*.jsonl)
  [[ -e ${files[0]} ]] || return 0
  cat "${files[@]}" | jq -r '"\(.point)\t\(.replicate)"' | sort
}

# The reference set of (point, replicate) of a complete local run in DIR, checked against the
# spec's points: every listed point is there, with the same number of replicates, each once.
# Prints the set (as done_keys does).
reference_keys() { # RINGSIM SPEC DIR
  local keys points got dups reps
  keys=$(done_keys "$3")
  [[ -n $keys ]] || fail "the local run wrote no points in $3"
  dups=$(uniq -d <<<"$keys")
  [[ -z $dups ]] || fail "the local run has duplicates: $(head -3 <<<"$dups" | tr '\n' ' ')"
  points=$(list_points "$1" "$2")
  got=$(cut -f1 <<<"$keys" | sort -u)
  [[ $got == "$points" ]] ||
    fail "the local run's points differ from \`sweep --list\`: $(diff <(echo "$points") <(echo "$got") | head -5 | tr '\n' ' ')"
  reps=$(cut -f1 <<<"$keys" | uniq -c | awk '{print $1}' | sort -u | wc -l)
  ((reps == 1)) || fail "the local run's points have different numbers of replicates"
  echo "$keys"
}

# Nothing lost, nothing duplicated: DIR's shard files hold exactly the reference set, each once.
check_complete() { # DIR REFERENCE_KEYS WHAT
  local keys dups missing extra
  keys=$(done_keys "$1")
  dups=$(uniq -d <<<"$keys")
  [[ -z $dups ]] || fail "$3: duplicated (point, replicate): $(head -5 <<<"$dups" | tr '\n\t' ' /')"
  missing=$(comm -23 <(echo "$2") <(echo "$keys"))
  extra=$(comm -13 <(echo "$2") <(echo "$keys"))
  [[ -z $missing ]] || fail "$3: $(wc -l <<<"$missing") (point, replicate) lost, e.g. $(head -3 <<<"$missing" | tr '\n\t' ' /')"
  [[ -z $extra ]] || fail "$3: (point, replicate) not in the spec: $(head -3 <<<"$extra" | tr '\n\t' ' /')"
  say "$3: all $(wc -l <<<"$keys") (point, replicate) there, each once"
}

# What must not depend on where a point ran: each line as written (point, replicate, seed,
# axes, status, stats...) but for its wall time, sorted. Compared as text, not through jq,
# whose numbers are doubles: seeds and counters past 2^53 would compare rounded.
results() { # DIR
  cat "$1"/points-*-of-*.jsonl |
    sed -E 's/,"wall_s":[-+.0-9eE]+//; s/"wall_s":[-+.0-9eE]+,//' | sort
}
compare_results() { # DIR_A DIR_B WHAT
  local d
  [[ -n $(results "$1") ]] || fail "$3: no results in $1"
  d=$(diff <(results "$1") <(results "$2")) ||
    fail "$3: per-point results differ (< $1, > $2):"$'\n'"$(head -10 <<<"$d")"
  say "$3: per-point results identical ($(results "$1" | wc -l) lines)"
}

# Merges DIR with `ringsim merge` into DIR.csv and DIR.merged.json.
merge_dir() { # RINGSIM DIR
  bounded "$1" merge "$2" --csv "$2.csv" --json "$2.merged.json" >"$2.merge.txt" ||
    fail "ringsim merge $2 failed: $(cat "$2.merge.txt")"
  [[ -s $2.csv ]] || fail "ringsim merge wrote no $2.csv"
}
# The merged tables of two runs of the same sweep must be equal, but for columns about wall
# time (which measure the machine, not the model).
comparable_csv() { # FILE
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if (tolower($i) !~ /wall/) keep[i] = 1 }
           { s = ""; for (i = 1; i <= NF; i++) if (i in keep) s = s "," $i; print s }' "$1"
}
compare_merged() { # DIR_A DIR_B WHAT
  local d
  d=$(diff <(comparable_csv "$1.csv") <(comparable_csv "$2.csv")) ||
    fail "$3: merged tables differ:"$'\n'"$(head -10 <<<"$d")"
  say "$3: merged tables identical ($(($(wc -l <"$1.csv") - 1)) rows)"
}

# Every shard 0..SHARDS-1 wrote its results file in DIR.
check_shard_files() { # DIR SHARDS WHO
  local i
  for ((i = 0; i < $2; i++)); do
    [[ -s $1/points-$i-of-$2.jsonl ]] ||
      fail "$3 $i wrote no points-$i-of-$2.jsonl: $(ls "$1")"
  done
}

# A sharded run against the local one: complete, line for line the same results, and the
# same merged table.
check_same_as_local() { # RINGSIM LOCAL_DIR DIR REFERENCE_KEYS WHAT
  check_complete "$3" "$4" "$5"
  compare_results "$2" "$3" "$5 vs local --jobs 2"
  merge_dir "$1" "$2"
  merge_dir "$1" "$3"
  compare_merged "$2" "$3" "ringsim merge, $5 vs local"
}

# `ringsim sweep` run here, outside any Slurm job: no shard from the environment.
local_sweep() { # RINGSIM SPEC DIR [options...]
  local ringsim=$1 spec=$2 dir=$3
  shift 3
  bounded env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN \
    -u SLURM_ARRAY_TASK_MAX -u SLURM_ARRAY_JOB_ID \
    "$ringsim" sweep "$spec" --out "$dir" "$@" >"$dir.log" 2>&1 ||
    fail "ringsim sweep $spec --out $dir $* failed:"$'\n'"$(tail -20 "$dir.log")"
}

# Makes sure the Debian packages given are installed, with tools/setup.sh when root; exits 77
# (ctest: skipped) saying why when they cannot be.
need_packages() { # PACKAGE...
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -eq 0 ]]; then
    say "installing ${missing[*]} (tools/setup.sh)"
    bounded "$SWEEP_SOURCE_DIR/tools/setup.sh" >&2 || true
  fi
  local still=()
  for p in "${missing[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || still+=("$p")
  done
  if ((${#still[@]})); then
    echo "SKIP: Debian packages ${still[*]} are not installed and could not be installed" \
      "($( [[ $(id -u) -eq 0 ]] && echo "tools/setup.sh did not install them" || echo "not root"))"
    exit 77
  fi
}
