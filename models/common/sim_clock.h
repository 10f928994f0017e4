// The models' one view of simulated time: what "now" is for an operation that issues, a
// record that is stamped, a fault that is counted. Plain C++: a model that only needs the
// time (the ring buffer, the checkers, the MMU) includes this, never SystemC, and compiles
// and is unit-tested without the SystemC kernel. Implemented once, over SystemC's
// sc_time_stamp() (resolution 1 ps), in sim_clock.cpp; outside a running simulation it is 0.
#pragma once

#include "models/common/types.h"

namespace ringsim::models {

Picos sim_now();

} // namespace ringsim::models
