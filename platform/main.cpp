// The ringsim executable. main() comes before SystemC's own so that the copyright banner can
// be switched off before the SystemC kernel initialises (it reads the variable then).
#include "platform/cli.h"
#include "platform/systemc_kernel.h"

#include <cstdlib>
#include <malloc.h>
#include <systemc>

int sc_main(int argc, char** argv) {
    ringsim::platform::configure_systemc();
    return ringsim::platform::run_cli(argc, argv);
}

int main(int argc, char** argv) {
    // Memory freed stays with the process for its next use instead of going back to the kernel
    // and being faulted in again, zeroed, page by page: a harvest's multi-megabyte copy and
    // the lists of where its bytes came from are made and freed again at every snapshot (the
    // benchmark's snapshot scenario took 167,000 page faults and about 1 s of system time in a
    // 2.4 s run; 12,000 and 0.05 s so). Blocks from 16 MiB up are still mapped on their own and
    // up to 32 MiB free at the heap's top is kept: more (the workers' 256 MiB and 1 GiB, set in
    // serve()) raised the peak of the reference's 10 s with 4,096 data pages by 6%, this by
    // 1.5%.
    mallopt(M_MMAP_THRESHOLD, 16 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
    // Keep stdout to ringsim's own output: goldens and scripts read it.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
