#!/usr/bin/env bash
# tools/realperf/measure where perf cannot record (issue 16): it says why and exits 2. A perf
# that fails as perf_event_open does without permission stands in for the real one; nothing
# runs long (the probe fails before the grid starts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cat >"$work/bin/perf" <<'STUB'
#!/bin/sh
echo "Error:" >&2
echo "Access to performance monitoring and observability operations is limited." >&2
exit 255
STUB
chmod +x "$work/bin/perf"
status=0
PATH="$work/bin:$PATH" "$here/../../tools/realperf/measure" --grid quick --out "$work/d.json" \
  2>"$work/err" || status=$?
cat "$work/err"
[[ $status == 2 ]] || { echo "refusal: exit $status, expected 2"; exit 1; }
grep -q "perf cannot record cpu-clock on this machine" "$work/err"
grep -q "Access to performance monitoring" "$work/err"
[[ ! -e $work/d.json ]] || { echo "refusal: a dataset was written"; exit 1; }
# Bad flags are refused the same way.
status=0
"$here/../../tools/realperf/measure" --grid huge --out "$work/d.json" 2>"$work/err" || status=$?
[[ $status == 2 ]] || { echo "refusal: --grid huge: exit $status, expected 2"; exit 1; }
grep -q "expected full or quick, found 'huge'" "$work/err"
# calibrate, the one command, refuses where measure does, and leaves no profile or table.
status=0
PATH="$work/bin:$PATH" "$here/../../tools/realperf/calibrate" --grid quick --out "$work/cal" \
  2>"$work/err" || status=$?
[[ $status == 2 ]] || { cat "$work/err"; echo "refusal: calibrate exit $status, expected 2"; exit 1; }
grep -q "perf cannot record cpu-clock on this machine" "$work/err"
[[ ! -e $work/cal/profile && ! -e $work/cal/validation.md ]] ||
  { echo "refusal: calibrate wrote a profile or a table"; exit 1; }
# A flag whose value is missing: exit 2 saying so, in each of the tools (not bash's 127).
for cmd in "measure --grid quick --out" "profile x.json --out" "validate x.json --profile" \
           "calibrate --out"; do
  status=0
  # shellcheck disable=SC2086
  "$here/../../tools/realperf/"$cmd 2>"$work/err" || status=$?
  [[ $status == 2 ]] && grep -q "needs a value" "$work/err" ||
    { cat "$work/err"; echo "refusal: $cmd: exit $status, expected 2"; exit 1; }
done
