#!/usr/bin/env bash
# Builds ringsim and runs the whole test suite: a RelWithDebInfo build, then (unless
# RINGSIM_SKIP_SANITIZERS=1) the same tests under AddressSanitizer and UBSan, and the fuzz
# targets for a minute each.
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
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure -LE long
  # The `long` tests too, reduced (RINGSIM_REDUCED=1, tests/support/reduced.h): a tenth of
  # their runs, seeds and points, so that no code path of the suite skips the sanitizers;
  # their full statistical strength is the optimised build's job, above. Left out:
  # docs_are_current (regenerates every page of docs/ through tools/docs.sh, 8 minutes
  # optimised, and its outputs are runs the other tests make), sweep/slurm (the Slurm
  # daemons' mechanics around the same `ringsim sweep` that sweep_test and sweep/parallel
  # run here) and realperf_live (it measures the real perf, and runs no ringsim).
  RINGSIM_REDUCED=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure -L long \
    -E '^(docs_are_current|sweep/slurm|realperf_live)$'
  # The fuzz targets (tests/fuzz/), 60 s each under ASan and UBSan, from their seed corpus:
  # every crash they find fails the check (tests/fuzz/README.md).
  tools/fuzz.sh --seconds 60
fi
