// The ringsim executable. main() comes before SystemC's own so that the copyright banner can
// be switched off before the SystemC kernel initialises (it reads the variable then).
#include "platform/cli.h"

#include <cstdlib>
#include <systemc>

int sc_main(int argc, char** argv) {
    // Resolution 1 ps, once, before anything creates a time (ANCHORS §6: no silent rounding).
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    // ringsim ends every run with sc_stop() on purpose: that is not news worth printing.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                            sc_core::SC_DO_NOTHING);
    return ringsim::platform::run_cli(argc, argv);
}

int main(int argc, char** argv) {
    // Keep stdout to ringsim's own output: goldens and scripts read it.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
