#include "models/common/sim_clock.h"

#include <systemc>

namespace ringsim::models {

Picos sim_now() {
    // Every model asks on every access: read the kernel's clock through the context, inline,
    // instead of through sc_time_stamp(), a call into libsystemc that looks the context up
    // each time. A process has one simulation context, for its whole life.
    static const sc_core::sc_simcontext* const context = sc_core::sc_get_curr_simcontext();
    return context->time_stamp().value();
}

} // namespace ringsim::models
