#!/usr/bin/env bash
# Extracts the kernel's litmus tests (tools/memory-model/litmus-tests/ of Linux 6.1) from
# Debian's linux-source-6.1 package (tools/setup.sh installs it) into DIR, once: nothing of
# the kernel is committed to ringsim. Prints DIR. Usage: tools/lkmm-tests.sh DIR
set -euo pipefail
dir=${1:?usage: tools/lkmm-tests.sh DIR}
tarball=/usr/src/linux-source-6.1.tar.xz
if [[ ! -r $tarball ]]; then
  echo "lkmm-tests: no $tarball: install Debian's linux-source-6.1 (tools/setup.sh does)" >&2
  exit 2
fi
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9 # tests extracting at once wait for the first
if [[ ! -f $dir/.complete ]]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xJf "$tarball" -C "$dir" --strip-components=4 --wildcards \
    'linux-source-6.1/tools/memory-model/litmus-tests/*'
  touch "$dir/.complete"
fi
echo "$dir"
