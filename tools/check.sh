#!/usr/bin/env bash
# Builds ringsim and runs the whole test suite: a RelWithDebInfo build, then (unless
# RINGSIM_SKIP_SANITIZERS=1) the same tests under AddressSanitizer and UBSan.
# Installs what is missing first (tools/setup.sh). Exit status: that of the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

tools/setup.sh

# The Quick start's own build (CMakePresets.json): a tree built by its first command is
# reused as it is, not rebuilt with other flags.
cmake --preset default
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

if [[ "${RINGSIM_SKIP_SANITIZERS:-0}" != 1 ]]; then
  cmake --preset asan
  cmake --build build-asan -j"$jobs"
  # The `long` tests (thousands of simulations each) ran above in the optimised build.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure -LE long
fi
