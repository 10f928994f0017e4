#include "models/common/sim_clock.h"

#include <systemc>

namespace ringsim::models {

namespace detail {
extern Picos g_lead; // sim_wait.cpp: how far the running process is ahead of SystemC's clock
} // namespace detail

Picos sim_now() {
    // Every model asks on every access: read the kernel's clock through the current context,
    // inline, instead of through sc_time_stamp(), a call into libsystemc. Never cached: a
    // worker of sweep or matrix makes a new context for each run (platform/systemc_kernel.cpp),
    // and a pointer kept from the first would read a deleted kernel's clock.
    // A process that skipped a wait (sim_wait.h) is ahead of the kernel by its lead.
    return sc_core::sc_get_curr_simcontext()->time_stamp().value() + detail::g_lead;
}

} // namespace ringsim::models
