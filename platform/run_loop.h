// Runs the elaborated simulation to its end, in slices of simulated time, so that between
// two slices it can stop for SIGINT or SIGTERM and show progress. Slicing changes nothing a
// model sees: sc_start resumes exactly where the previous slice stopped.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace ringsim::platform {

struct RunLoopOptions {
    uint64_t duration_ps = 0; // the workload's duration: 100% of the progress line
    // A progress line on `progress_out` (at most four a second on a terminal, where each
    // rewrites the last; one a second otherwise); nullptr for none.
    std::ostream* progress_out = nullptr;
    bool terminal = false;
};

struct RunLoopEnd {
    int signal = 0; // SIGINT or SIGTERM when one stopped the run; 0 when it ran to its end
};

// The run loop's two switches for the tests that hold the ways of waiting to each other
// (tests/regression/lead_is_exact.cmake), each unset, empty, "0" or "1": RINGSIM_NO_LEAD=1,
// every wait a real one; RINGSIM_PARK=1, sleepers park from the first instant on, =0 never.
// The first that is none of those, as "NAME: expected ..., found ..." (every command that
// simulates refuses it, cli.cpp, rather than guess; run_simulation throws); empty when both
// are.
std::string bad_run_environment();

// Installs handlers for SIGINT and SIGTERM for the length of the run (the previous ones are
// back when it returns: a second signal while the outputs are written acts as usual).
RunLoopEnd run_simulation(const RunLoopOptions& options);

} // namespace ringsim::platform
