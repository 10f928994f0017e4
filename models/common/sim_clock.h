// The models' one view of simulated time: what "now" is for an operation that issues, a
// record that is stamped, a fault that is counted. Plain C++: a model that only needs the
// time (the ring buffer, the checkers, the MMU) includes this, never SystemC, and compiles
// and is unit-tested without the SystemC kernel. It reads SystemC's clock (resolution
// 1 ps); before the first kernel exists it is 0.
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

#include <cstring>

namespace sc_core {
class sc_simcontext;
extern sc_simcontext* sc_curr_simcontext; // SystemC's current kernel (null before the first)
} // namespace sc_core

namespace ringsim::models {

namespace detail {
extern const sc_core::sc_simcontext* g_clock_kernel; // the kernel g_clock reads
// Its time stamp in picoseconds: the 8 bytes of sc_time's value (sim_clock.cpp).
extern const void* g_clock;
extern Picos g_lead;  // how far the running process is ahead of it (sim_wait.cpp)
Picos attach_clock(); // points g_clock at the current kernel's clock; returns it
} // namespace detail

inline Picos sim_now() {
    // A process that skipped a wait (sim_wait.h) is ahead of the kernel by its lead. The
    // rare path is marked so: the compiler then keeps a caller's arguments in registers on
    // the usual one, and spills them only around attach_clock().
    if (__builtin_expect(detail::g_clock_kernel != sc_core::sc_curr_simcontext, 0))
        return detail::attach_clock() + detail::g_lead;
    Picos now; // copied as bytes: sc_time's value type is not Picos' type on every target
    std::memcpy(&now, detail::g_clock, sizeof now);
    return now + detail::g_lead;
}

// When a kernel was deleted (platform/systemc_kernel.cpp): the clock forgets it, so that a
// new kernel made at the same address is attached anew, not read through the old pointer.
// Until a kernel is attached again, sim_now() is 0 with none current, and attaches (making
// one, as sc_time_stamp() would) once one is.
void sim_clock_forget_kernel();

} // namespace ringsim::models
