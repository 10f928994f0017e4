#!/usr/bin/env bash
# A stand-in for `ringsim sweep` and `ringsim merge` (issue 9) that follows their contract on
# the command line and in the files, so that the Slurm and GNU parallel mechanics (array tasks,
# shards, resume after a cancel, merge, comparison) can be tested without the simulator.
# It simulates nothing: each (point, replicate) sleeps the spec's point_seconds and gets stats
# computed from the spec's seed, the point and the replicate, so they are the same wherever
# and in whatever order they run.
#
#   fake-ringsim.sh sweep SPEC --list
#   fake-ringsim.sh sweep SPEC --out DIR [--jobs J] [--shard I/N] [--set P=V]... [--timeout S]
#   fake-ringsim.sh merge DIR... [--csv FILE] [--json FILE]
#
# Its spec (not ringsim's format): {"points": P, "replicates": R, "point_seconds": T, "seed": S}.
# Points are 0..P-1 with axes {"x": point}; shard I of N takes the points with point % N == I.
set -euo pipefail

die() { echo "fake-ringsim: $*" >&2; exit 2; }
(($# >= 1)) || die "usage: sweep|merge ..."
cmd=$1
shift

sweep() {
  local spec="" out="" jobs=1 shard="" list=0
  spec=$1
  shift
  while (($#)); do
    case $1 in
    --list) list=1 ;;
    --out) out=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --shard) shard=$2; shift ;;
    --set | --timeout) shift ;;
    *) die "unknown option $1" ;;
    esac
    shift
  done
  [[ -r $spec ]] || die "cannot read $spec"
  local P R T S
  P=$(jq -e .points "$spec") R=$(jq -e .replicates "$spec")
  T=$(jq -e '.point_seconds // 0' "$spec") S=$(jq -e '.seed // 1' "$spec")
  if ((list)); then
    local p
    for ((p = 0; p < P; p++)); do echo "$p x=$p"; done
    return 0
  fi
  [[ -n $out ]] || die "sweep needs --out DIR"
  local I N
  if [[ -n $shard ]]; then
    I=${shard%/*} N=${shard#*/}
  elif [[ -n ${SLURM_ARRAY_TASK_ID:-} && -n ${SLURM_ARRAY_TASK_COUNT:-} ]]; then
    I=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0})) N=$SLURM_ARRAY_TASK_COUNT
  else
    I=0 N=1
  fi
  ((N >= 1 && I >= 0 && I < N)) || die "bad shard $I/$N"
  mkdir -p "$out"
  local hash
  hash=$(sha256sum <"$spec" | cut -d' ' -f1)
  jq -n --slurpfile s "$spec" --arg h "$hash" '{spec: $s[0], hash: $h}' >"$out/sweep.json.$$"
  mv "$out/sweep.json.$$" "$out/sweep.json"
  local file=$out/points-$I-of-$N.jsonl
  touch "$file"
  # Resume: a torn last line (no newline at the end) is cut off and redone.
  if [[ -s $file && $(tail -c1 "$file" | od -An -c | tr -d ' ') != '\n' ]]; then
    local keep
    keep=$(($(wc -c <"$file") - $(tail -n1 "$file" | wc -c)))
    truncate -s "$keep" "$file"
  fi
  local done_keys
  done_keys=$(jq -r '"\(.point)/\(.replicate)"' "$file")
  local p r running=0
  for ((p = I; p < P; p += N)); do
    for ((r = 0; r < R; r++)); do
      grep -qxF "$p/$r" <<<"$done_keys" && continue
      (
        sleep "$T"
        seed=$((S * 1000003 + p * 101 + r))
        line=$(jq -cn --argjson p "$p" --argjson r "$r" --argjson s "$seed" --argjson w "$T" \
          '{point: $p, axes: {x: $p}, replicate: $r, seed: $s, status: "ok", reason: null,
            wall_s: $w, stats: {value: (($s * 7919) % 1000), square: ($p * $p), rep: $r}}')
        echo "$line" >>"$file" # one write of < PIPE_BUF bytes with O_APPEND: lines never mix
      ) &
      running=$((running + 1))
      if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
    done
  done
  wait
}

merge() {
  local dirs=() csv="" json=""
  while (($#)); do
    case $1 in
    --csv) csv=$2; shift ;;
    --json) json=$2; shift ;;
    *) dirs+=("$1") ;;
    esac
    shift
  done
  ((${#dirs[@]})) || die "merge needs a directory"
  local files=() d f
  for d in "${dirs[@]}"; do
    for f in "$d"/points-*-of-*.jsonl; do [[ -e $f ]] && files+=("$f"); done
  done
  ((${#files[@]})) || die "no points-*.jsonl in ${dirs[*]}"
  # Rows by point: n, and per metric the mean and a 95% CI half-width (normal approximation).
  local table
  table=$(cat "${files[@]}" | jq -s '
    if (group_by([.point, .replicate]) | map(select(length > 1)) | length) > 0
    then error("duplicate (point, replicate)") else . end
    | map(select(.status == "ok")) | group_by(.point) | map(
      . as $rows | {point: .[0].point, axes: .[0].axes, n: length,
        metrics: ([.[0].stats | keys[]] | map(. as $k | ($rows | map(.stats[$k])) as $v
          | ($v | add / length) as $m
          | (if ($v | length) > 1 then ($v | map((. - $m) * (. - $m)) | add / (length - 1) | sqrt)
             else 0 end) as $sd
          | {key: $k, value: {mean: $m, ci95: (1.96 * $sd / ($v | length | sqrt))}}) | from_entries)})')
  [[ -z $json ]] || echo "$table" >"$json"
  if [[ -n $csv ]]; then
    echo "$table" | jq -r '(.[0].metrics | keys) as $k
      | (["point", "n"] + ($k | map(., . + "_ci95")) | @csv),
        (.[] | [.point, .n] + ([.metrics[$k[]] | .mean, .ci95]) | @csv)' >"$csv"
  fi
  [[ -n $json || -n $csv ]] || echo "$table"
}

case $cmd in
sweep) (($# >= 1)) || die "sweep needs a spec"; sweep "$@" ;;
merge) merge "$@" ;;
*) die "unknown command $cmd" ;;
esac
