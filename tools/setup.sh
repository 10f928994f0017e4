#!/usr/bin/env bash
# Installs the Debian 12 packages ringsim needs to build and test, only those missing.
# Run as root (or with sudo). Nothing is downloaded from anywhere but Debian's archive.
set -euo pipefail

packages=(
  g++ make cmake pkg-config git
  libsystemc-dev          # SystemC 2.3.4 (pkg-config only)
  nlohmann-json3-dev      # scenario files
  libboost-program-options-dev
  libgtest-dev            # GoogleTest
  linux-libc-dev          # <linux/perf_event.h>: the real perf ABI
  gnuplot-nox             # tools/plot-sweep, the pictures in docs/
  munge slurmctld slurmd slurm-client  # tests/sweep: a private Slurm cluster (tools/slurm)
  parallel                # tests/sweep: shards under GNU parallel
  jq                      # tests/sweep: comparing shard files
  clang-format            # tools/format.sh: the tree's one style, checked by a test
  linux-perf              # tests/perf: perf report reads ringsim's perf.data (OpenCSD inside)
  valgrind                # tests/bench: instructions per record, counted by callgrind
  libopencsd-bin          # trc_pkt_lister: OpenCSD decodes the ETM trace (tests/unit/opencsd_test.cpp)
  clang                   # tools/fuzz.sh: the libFuzzer targets of tests/fuzz (clang 14 on Debian 12)
  libclang-rt-14-dev      # tools/fuzz.sh: libFuzzer and the sanitizer runtimes (-fsanitize=fuzzer)
  gtkwave                 # --vcd: vcd2fst/fst2vcd and GTKWave itself check the dumps and views (tests/unit/vcd_test.cpp)
  xvfb xauth              # xvfb-run: GTKWave without a display, in those tests
  linux-source-6.1        # the kernel's own litmus tests (tools/lkmm-tests.sh, tests/unit/lkmm_suite_test.cpp)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: every package is installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
