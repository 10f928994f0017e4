// A child that is `ringsim run ARGS...` without an exec: the pool forks ringsim itself and the
// child calls the command line's entry point. Explore, matrix and sweep use it so that a short
// run does not pay for exec and dynamic linking, nor for loading the binary again.
#pragma once

#include "platform/runner/process_pool.h"

namespace ringsim::platform::runner {

// The job `ringsim ARGS...` (ARGS start with the command word, e.g. "run") in `dir`.
Job ringsim_job(std::vector<std::string> args, std::filesystem::path dir, double timeout_s = 0);

} // namespace ringsim::platform::runner
