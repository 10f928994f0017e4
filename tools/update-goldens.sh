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
rm -rf "$out"
