// How every explanation and summary writes a simulated time: microseconds with 3 decimals
// (nanosecond resolution), one unit everywhere a reader compares two instants.
#pragma once

#include "models/common/types.h"

#include <cstdio>
#include <string>

namespace ringsim::models {

inline std::string us_text(Picos t) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f us", double(t) / 1e6);
    return buf;
}

} // namespace ringsim::models
