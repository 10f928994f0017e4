#!/usr/bin/env bash
# Rewrites tests/regression/expected/<scenario>.stats.json from a fresh run of every
# scenario. Review `git diff tests/regression/expected` before committing: a golden that
# changes is a behaviour that changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${RINGSIM:-build/ringsim}
out=$(mktemp -d)
for s in scenarios/*.json; do
  name=$(basename "$s" .json)
  "$bin" run "$s" --out "$out/$name" > /dev/null
  cp "$out/$name/stats.json" "tests/regression/expected/$name.stats.json"
  echo "updated tests/regression/expected/$name.stats.json"
done
# Variants (tests/regression/variants.txt): NAME SCENARIO --set KEY=VALUE...
while read -r name scenario sets; do
  case "$name" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086 # the overrides are words
  "$bin" run "scenarios/$scenario.json" $sets --out "$out/$name" > /dev/null
  cp "$out/$name/stats.json" "tests/regression/expected/$name.stats.json"
  echo "updated tests/regression/expected/$name.stats.json"
done < tests/regression/variants.txt
rm -rf "$out"
