#!/bin/bash
# Every wait and notification of a SystemC process goes through models/common/sim_wait.h: a
# raw sc_core::wait or sc_event::notify could yield while its process is ahead of SystemC's
# clock, or wake a process outside the order of its instant, and sim_wait's remembered answer
# to "when is the next activity" holds only because a process adds activity through it alone.
# Checks models/ and platform/ (platform/series.cpp runs a SystemC thread) for waits and
# notifications, qualified or not, next_trigger and sc_spawn; platform/runner/process_pool.cpp
# is the process pool's own waiting for children, not SystemC's. Fails naming each raw call.
set -euo pipefail
cd "$(dirname "$0")/../.."
raw=$(grep -rnE 'sc_core::wait\(|[.>]notify\(|(^|[^_[:alnum:]])wait\(|next_trigger\(|sc_spawn|(^|[^_[:alnum:].:])notify\(' \
    models platform --include='*.cpp' --include='*.h' |
    grep -v -e '^models/common/sim_wait\.' -e '^platform/runner/process_pool\.cpp:' || true)
if [[ -n $raw ]]; then
    echo "raw SystemC waits or notifications (use sim_wait, sim_notify, sim_sync):"
    echo "$raw"
    exit 1
fi
