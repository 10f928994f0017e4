#include "models/common/sim_clock.h"

#include <systemc>

namespace ringsim::models {

Picos sim_now() {
    return sc_core::sc_time_stamp().value();
}

} // namespace ringsim::models
