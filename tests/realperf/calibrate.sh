#!/usr/bin/env bash
# tools/realperf/calibrate, the one command of docs/validation.md (issue 16), from a dataset
# measured before (--dataset: no perf needed): DIR holds the dataset, the profile and the
# table, and the table printed is the one written, a row per held-out point. Then the
# calibration's notes: a fit that comes out below 0, or runs that cannot tell the two
# costs apart, are taken as 0 and said so (calibration.jq), never silently.
#
#   tests/realperf/calibrate.sh RINGSIM DATASET
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ringsim=${1:?ringsim binary} dataset=${2:?dataset}
tools=$here/../../tools/realperf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "calibrate: $*"; exit 1; }

status=0
"$tools/calibrate" --dataset "$dataset" --out "$work/cal" --seeds 2 --jobs 2 --ringsim "$ringsim" \
  >"$work/table" 2>"$work/err" || status=$?
((status == 0)) || { cat "$work/err"; fail "exit $status"; }
cmp -s "$dataset" "$work/cal/dataset.json" || fail "DIR/dataset.json is not the dataset given"
jq -e '.format == "ringsim-profile-2"' "$work/cal/profile/profile.json" >/dev/null ||
  fail "no profile in DIR/profile"
held_out=$(jq '[.points[] | select(.held_out)] | length' "$work/cal/profile/profile.json")
# A point's row ends with its wake-ups, measured / predicted.
rows=$(grep -cE '^\| [a-z].* \| [0-9]+us \| [0-9]+ \| .* \| [0-9]+ / [0-9]+ \|$' "$work/cal/validation.md" || true)
((held_out > 0 && rows == held_out)) || fail "$rows rows in validation.md for $held_out held-out points"
grep -q '^Targets: the loss/no-loss boundary agrees at ' "$work/cal/validation.md" ||
  fail "validation.md has no targets line"
grep -qF "$(grep '^Targets:' "$work/cal/validation.md")" "$work/table" ||
  fail "the table printed is not the one written"
grep -q "calibrate: wrote $work/cal/dataset.json" "$work/err" || fail "no closing line"

# Bad flags and values are refused with exit 2, saying why.
for bad in "--out" "--out $work/x --dataset" "--out $work/x --dataset $work" "--out $work/x --seeds"; do
  status=0
  # shellcheck disable=SC2086
  "$tools/calibrate" $bad >/dev/null 2>"$work/err" || status=$?
  ((status == 2)) && grep -q '^calibrate: ' "$work/err" ||
    fail "calibrate $bad: exit $status, $(cat "$work/err")"
done

# The notes of the calibration.
run() { jq -nc --arg c idle --argjson m "$1" --argjson w "$2" --argjson b "$3" --argjson s "$4" \
  '{condition: $c, period_ns: 10000, pages: $m, samples: 1000, lost: 0, woken: $w,
    perf_data_bytes: $b, perf_cpu_s: $s}'; }
calibrate() { jq -s --argjson seconds 1 -f "$tools/calibration.jq"; }
# Two buffer sizes whose wake-ups and bytes tell the costs apart: no note.
{ run 8 100 64000 0.003; run 16 50 64000 0.002; run 8 100 32000 0.0025; } | calibrate >"$work/c"
jq -e '.notes == [] and .seconds_per_wakeup > 0' "$work/c" >/dev/null || fail "$(cat "$work/c")"
# More wake-ups costing less: the fit per wake-up is below 0, taken as 0, and said.
{ run 8 100 64000 0.001; run 16 50 64000 0.003; run 8 100 32000 0.0005; } | calibrate >"$work/c"
jq -e '.seconds_per_wakeup == 0 and (.notes | length == 1)
       and (.notes[0] | test("cost per wake-up came out at -[0-9]+ ns, below 0: taken as 0"))' \
  "$work/c" >/dev/null || fail "$(cat "$work/c")"
# Every run wrote as many bytes: the time goes on the wake-ups, the cost per byte is 0, said.
{ run 8 100 64000 0.003; run 16 50 64000 0.002; } | calibrate >"$work/c"
jq -e '.seconds_per_byte == 0 and (.seconds_per_wakeup * 1e9 | round) == 20000
       and (.notes[0] | test("the cost per byte taken as 0"))' "$work/c" >/dev/null ||
  fail "$(cat "$work/c")"
# Every run wrote as many bytes, at one wake-up count: nothing to fit, both 0, and said.
{ run 8 100 64000 0.001; run 16 100 64000 0.003; } | calibrate >"$work/c"
jq -e '.seconds_per_wakeup == 0 and .seconds_per_byte == 0
       and (.notes[0] | test("both are taken as 0"))' "$work/c" >/dev/null || fail "$(cat "$work/c")"
# profile says the calibration's notes again, where the profile is made.
jq '.calibration.notes = ["a note of the calibration"]' "$dataset" >"$work/noted.json"
"$tools/profile" "$work/noted.json" --out "$work/noted" 2>"$work/err" >/dev/null
grep -qx 'profile: note: a note of the calibration' "$work/err" || fail "profile: $(cat "$work/err")"
echo "calibrate: DIR holds the dataset, the profile and the table of $rows held-out points; the calibration's notes hold"
