#!/usr/bin/env bash
# Formats every C++ file of the repository with .clang-format (clang-format from Debian,
# installed by tools/setup.sh), or with --check changes nothing and fails, naming the
# files, when one is not formatted. tests/CMakeLists.txt runs `tools/format.sh --check`.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (tools/setup.sh)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' 2>/dev/null || find models platform tests cmake -name '*.cpp' -o -name '*.h')
if [[ ${1:-} == --check ]]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if ((${#bad[@]})); then
    echo "format.sh: not formatted (run tools/format.sh): ${bad[*]}" >&2
    exit 1
  fi
  exit 0
fi
clang-format -i "${files[@]}"
