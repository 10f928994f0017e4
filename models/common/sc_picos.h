// Picoseconds as an sc_time, exactly: ringsim runs SystemC at a resolution of 1 ps (set in
// main and in the tests' main; also SystemC's default), so an sc_time's value is the count
// of picoseconds. sc_time(double, SC_PS) would convert through a double and the resolution
// each time; this is a copy of the integer (issue 13 §1: two per record).
#pragma once

#include "models/common/types.h"

#include <systemc>

namespace ringsim::models {

inline sc_core::sc_time sc_picos(Picos t) {
    return sc_core::sc_time::from_value(t);
}

} // namespace ringsim::models
