// Runs the elaborated simulation to its end, in slices of simulated time, so that between
// two slices it can stop for SIGINT or SIGTERM and show progress. Slicing changes nothing a
// model sees: sc_start resumes exactly where the previous slice stopped.
#pragma once

#include <cstdint>
#include <iosfwd>

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

// Installs handlers for SIGINT and SIGTERM for the length of the run (the previous ones are
// back when it returns: a second signal while the outputs are written acts as usual).
RunLoopEnd run_simulation(const RunLoopOptions& options);

} // namespace ringsim::platform
