// The ringsim executable. main() comes before SystemC's own so that the copyright banner can
// be switched off before the SystemC kernel initialises (it reads the variable then).
#include "platform/cli.h"
#include "platform/systemc_kernel.h"

#include <cstdlib>
#include <systemc>

int sc_main(int argc, char** argv) {
    ringsim::platform::configure_systemc();
    return ringsim::platform::run_cli(argc, argv);
}

int main(int argc, char** argv) {
    // Keep stdout to ringsim's own output: goldens and scripts read it.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
