#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, -fsanitize=fuzzer,address,undefined with
# -fno-sanitize-recover=undefined) and runs each for a bounded time or number of runs, on a
# working corpus copied from the committed seeds (nothing is merged into the repository).
# Exit status: 0 when no target crashed, leaked or hung; 1 otherwise (the inputs are kept and
# named); 2 for bad usage or a failed build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

usage() {
  cat <<'EOF'
usage: tools/fuzz.sh [--seconds N | --runs N] [--campaign] [--only TARGET]...
                     [--build DIR] [--work DIR] [--build-only] [-h]

Builds tests/fuzz's libFuzzer targets in DIR (default build-fuzz) and runs each, one after
another, in one process each (one core), on a copy of its seeds: tests/fuzz/corpus/TARGET,
tests/fuzz/regressions/TARGET and the directories tests/fuzz/targets.txt names.

  --seconds N   run each target for N seconds (default 60; what CI runs)
  --runs N      run each target for N executions instead
  --campaign    a campaign: --runs 1000000 unless --runs or --seconds says otherwise, and
                tests/fuzz/campaign.json rewritten with each target's figures (executions,
                coverage, time, corpus, machine, commit); then run
                RINGSIM_UPDATE_DOCS=1 ctest -R FuzzCampaign in a build with tests to
                regenerate docs/reliability.md's table
  --only T      run target T only (repeatable)
  --build DIR   the clang build tree (default build-fuzz)
  --work DIR    keep the working corpora, logs and crash inputs there (default: a temporary
                directory, removed unless something crashed)
  --build-only  configure and build, run nothing
  -h, --help    this text

Every input that crashes, leaks, trips a sanitizer or runs over 10 s (-timeout=10) makes
the script exit 1 and is left in WORK/artifacts/TARGET/. Add it to
tests/fuzz/regressions/TARGET/ once fixed: the replay test fuzz_replay_TARGET runs it then.
EOF
}

seconds=60
runs=""
campaign=0
build=build-fuzz
work=""
build_only=0
only=()
while (($#)); do
  case $1 in
    --seconds) seconds=${2:?}; runs=""; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --campaign) campaign=1; shift ;;
    --only) only+=("${2:?}"); shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
if ((campaign)) && [[ -z $runs ]] && [[ $seconds == 60 ]]; then runs=1000000; fi
if [[ -n $runs ]]; then limit=(-runs="$runs"); else limit=(-max_total_time="$seconds"); fi

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is not installed (tools/setup.sh)" >&2; exit 2; }
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
build_start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRINGSIM_FUZZ=ON -DRINGSIM_SANITIZE=address,undefined -DRINGSIM_BUILD_TESTS=OFF \
  -DRINGSIM_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null || exit 2

# The targets and their extra seed directories (tests/fuzz/targets.txt).
targets=()
declare -A seed_dirs=()
while read -r name dirs; do
  [[ -z $name || $name == \#* ]] && continue
  if ((${#only[@]})) && [[ " ${only[*]} " != *" $name "* ]]; then continue; fi
  targets+=("$name")
  seed_dirs[$name]=$dirs
done <tests/fuzz/targets.txt
((${#targets[@]})) || { echo "fuzz.sh: no such target: ${only[*]}" >&2; exit 2; }

if ! cmake --build "$build" -j2 --target "${targets[@]/%/_fuzz}" >"$build/fuzz-build.log" 2>&1; then
  tail -n 40 "$build/fuzz-build.log" >&2
  echo "fuzz.sh: the build failed (log: $build/fuzz-build.log)" >&2
  exit 2
fi
echo "fuzz.sh: built ${targets[*]} in $(($(date +%s) - build_start)) s"
((build_only)) && exit 0

keep=1
if [[ -z $work ]]; then work=$(mktemp -d /tmp/ringsim-fuzz.XXXXXX); keep=0; fi
mkdir -p "$work"
failed=()
results=()
for t in "${targets[@]}"; do
  corpus=$work/corpus/$t
  artifacts=$work/artifacts/$t/
  mkdir -p "$corpus" "$artifacts"
  # The committed seeds, copied: libFuzzer adds what it finds to the first directory only.
  for d in tests/fuzz/corpus/"$t" tests/fuzz/regressions/"$t"; do
    if [[ -d $d ]]; then cp -r "$d"/. "$corpus"/; fi
  done
  extra=()
  for d in ${seed_dirs[$t]}; do extra+=("$root/$d"); done
  log=$work/$t.log
  echo "fuzz.sh: $t (${limit[*]}), log $log"
  start=$(date +%s.%N)
  status=0
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/${t}_fuzz" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$corpus" "${extra[@]}" >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n1 || true)
  if ((status != 0)) || [[ -z $done_line ]] || ls "$artifacts" | grep -q .; then
    echo "fuzz.sh: $t FAILED (exit $status): $(grep -m1 -E 'ERROR|SUMMARY|==[0-9]+==' "$log" || true)" >&2
    echo "fuzz.sh:   inputs: $(ls "$artifacts" | sed "s|^|$artifacts|" | tr '\n' ' ')" >&2
    failed+=("$t")
    continue
  fi
  execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$done_line")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$done_line")
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  rate=$(awk -v n="$execs" -v s="$wall" 'BEGIN { printf "%d", (s > 0 ? n / s : 0) }')
  echo "fuzz.sh: $t: $execs executions in $wall s ($rate/s), cov $cov, ft $ft, corpus $corp, no crash"
  results+=("$(jq -n --arg name "$t" --argjson executions "$execs" --argjson cov "$cov" \
    --argjson ft "$ft" --argjson seconds "$wall" --argjson exec_per_s "$rate" \
    --argjson corpus "$corp" \
    '{name: $name, executions: $executions, cov: $cov, ft: $ft, seconds: $seconds,
      exec_per_s: $exec_per_s, corpus: $corpus}')")
done

if ((${#failed[@]})); then
  echo "fuzz.sh: FAILED: ${failed[*]}; working files in $work" >&2
  exit 1
fi
((keep)) || rm -rf "$work"

if ((campaign)); then
  if ((${#only[@]})); then
    echo "fuzz.sh: --only: campaign.json not rewritten (it holds every target)" >&2
    exit 0
  fi
  cpu=$(sed -nE 's/^model name[[:space:]]*: (.*)/\1/p' /proc/cpuinfo | head -n1)
  repeat="tools/fuzz.sh --campaign"
  if [[ -n $runs && $runs != 1000000 ]]; then repeat+=" --runs $runs"; fi
  if [[ -z $runs ]]; then repeat+=" --seconds $seconds"; fi
  printf '%s\n' "${results[@]}" | jq -s \
    --arg date "$(date -u +%Y-%m-%d)" \
    --arg commit "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- models platform tests/fuzz 2>/dev/null || echo +changes)" \
    --arg cpu "$cpu" --argjson cores "$(nproc)" --arg kernel "$(uname -r)" \
    --arg clang "$(clang++ --version | head -n1)" --arg command "$repeat" \
    '{command: $command, date: $date, commit: $commit,
      sanitizers: "fuzzer,address,undefined (-fno-sanitize-recover=undefined)",
      options: "one process per target, -timeout=10 -rss_limit_mb=2048",
      machine: {cpu: $cpu, cores: $cores, kernel: $kernel, clang: $clang},
      targets: .}' >tests/fuzz/campaign.json
  echo "fuzz.sh: wrote tests/fuzz/campaign.json"
fi
echo "fuzz.sh: ${targets[*]}: no crash"
