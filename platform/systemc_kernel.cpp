#include "platform/systemc_kernel.h"

#include "models/common/sim_clock.h"
#include "models/common/sim_wait.h"

#include <systemc>

namespace ringsim::platform {

void configure_systemc() {
    // Resolution 1 ps, before anything creates a time (ANCHORS §6: no silent rounding).
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    // ringsim ends every run with sc_stop() on purpose: that is not news worth printing.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                            sc_core::SC_DO_NOTHING);
}

void fresh_systemc() {
    // SystemC 2.3 keeps its kernel in these two globals and makes a new one on first use when
    // they are null; the time resolution belongs to the kernel, so it is set again.
    // The library's static sc_event::none was made in the first kernel and its destructor,
    // at exit, unregisters its name there: that kernel stays alive (one, not one per run),
    // the later ones are deleted.
    static sc_core::sc_simcontext* const first = sc_core::sc_get_curr_simcontext();
    // A run that ended in an error may have left a process ahead of the old kernel's clock;
    // the wake queue's events belong to the old kernel and go before it (sim_wait.h).
    models::sim_reset_lead();
    if (sc_core::sc_curr_simcontext != first) delete sc_core::sc_curr_simcontext;
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
    // After the delete, so that nothing in it attaches the clock to the dying kernel again.
    models::sim_clock_forget_kernel();
    configure_systemc();
}

} // namespace ringsim::platform
