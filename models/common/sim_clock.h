// The models' one view of simulated time: what "now" is for an operation that issues, a
// record that is stamped, a fault that is counted. Plain C++: a model that only needs the
// time (the ring buffer, the checkers, the MMU) includes this, never SystemC, and compiles
// and is unit-tested without the SystemC kernel. It reads SystemC's clock (resolution
// 1 ps); outside a running simulation it is 0.
//
// Inline, because every access of every model asks (about a dozen times a record), and a
// call here also made each caller save and restore the registers holding its arguments
// around it (issue 13). The clock is read in place, through a pointer that sim_clock.cpp
// keeps on the current kernel's time stamp: a worker of sweep or matrix makes a new kernel
// for each run (platform/systemc_kernel.cpp), so the pointer is checked against SystemC's
// current kernel on every read, and taken again when that changed. Only that global is
// named here, declared, not SystemC's headers.
#pragma once

#include "models/common/types.h"

namespace sc_core {
class sc_simcontext;
extern sc_simcontext* sc_curr_simcontext; // SystemC's current kernel (null before the first)
} // namespace sc_core

namespace ringsim::models {

namespace detail {
extern const sc_core::sc_simcontext* g_clock_kernel; // the kernel g_clock reads
// Its time stamp in picoseconds: sc_time's value, read as its own type (sim_clock.cpp).
extern const unsigned long long* g_clock;
extern Picos g_lead;  // how far the running process is ahead of it (sim_wait.cpp)
Picos attach_clock(); // points g_clock at the current kernel's clock; returns it
} // namespace detail

inline Picos sim_now() {
    const Picos kernel = detail::g_clock_kernel == sc_core::sc_curr_simcontext
                             ? Picos(*detail::g_clock)
                             : detail::attach_clock();
    // A process that skipped a wait (sim_wait.h) is ahead of the kernel by its lead.
    return kernel + detail::g_lead;
}

} // namespace ringsim::models
