// SystemC's kernel as ringsim runs it, and a new one for each run of a worker process.
#pragma once

namespace ringsim::platform {

// The settings every run's kernel gets before anything creates a time: a 1 ps resolution and
// SystemC's own info messages off.
void configure_systemc();

// Replaces the current kernel (simulation context) by a new, configured one, so that the next
// run elaborates as in a fresh process. Called before each run of a worker
// (platform/runner/ringsim_child.cpp); the modules of the previous run must be gone.
void fresh_systemc();

} // namespace ringsim::platform
