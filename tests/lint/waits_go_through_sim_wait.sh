#!/bin/bash
# Every wait and notification of a model goes through models/common/sim_wait.h: a raw
# sc_core::wait or sc_event::notify could yield while its process is ahead of SystemC's
# clock, or wake a process outside the order of its instant. Fails naming each raw call.
set -euo pipefail
cd "$(dirname "$0")/../.."
raw=$(grep -rnE 'sc_core::wait\(|[.>]notify\(|[^_]wait\(sc_' models --include='*.cpp' --include='*.h' |
    grep -v '^models/common/sim_wait\.' || true)
if [[ -n $raw ]]; then
    echo "raw SystemC waits or notifications in models/ (use sim_wait, sim_notify, sim_sync):"
    echo "$raw"
    exit 1
fi
