// A new SystemC kernel for each run of a worker (platform/systemc_kernel.h): the models'
// clock (models/common/sim_clock.h) is the current kernel's, never one kept from before.
#include "models/common/sim_clock.h"
#include "platform/systemc_kernel.h"

#include <gtest/gtest.h>
#include <systemc>

using namespace ringsim;

TEST(SystemcKernel, TheModelsClockFollowsTheCurrentKernel) {
    platform::configure_systemc();
    sc_core::sc_start(sc_core::sc_time::from_value(7000));
    EXPECT_EQ(models::sim_now(), 7000u);
    // The next kernel, made while the old one is still alive, is at another address for sure
    // (fresh_systemc deletes the old one first, and malloc may or may not reuse its place).
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
    platform::configure_systemc();
    EXPECT_EQ(models::sim_now(), 0u);
    sc_core::sc_start(sc_core::sc_time::from_value(3000));
    EXPECT_EQ(models::sim_now(), 3000u);
}

TEST(SystemcKernel, AFreshKernelStartsAtZeroWithPicoseconds) {
    platform::configure_systemc();
    sc_core::sc_start(sc_core::sc_time::from_value(5000));
    EXPECT_EQ(models::sim_now(), 5000u); // the clock is attached to this kernel
    platform::fresh_systemc();
    // The clock forgot the deleted kernel: a new one at its address is attached anew.
    EXPECT_EQ(models::detail::g_clock_kernel, nullptr);
    EXPECT_EQ(models::sim_now(), 0u);
    EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
    sc_core::sc_start(sc_core::sc_time::from_value(2500));
    EXPECT_EQ(models::sim_now(), 2500u);
}

TEST(SystemcKernel, AForgottenKernelIsTakenAgainOnTheNextRead) {
    // fresh_systemc() makes the clock forget the kernel it deletes, so that one made at the
    // same address is attached anew; a kernel forgotten and still current is read again.
    platform::configure_systemc();
    sc_core::sc_start(sc_core::sc_time::from_value(4000));
    const models::Picos before = models::sim_now();
    models::sim_clock_forget_kernel();
    EXPECT_EQ(models::detail::g_clock_kernel, nullptr);
    EXPECT_EQ(models::sim_now(), before);
    EXPECT_EQ(models::detail::g_clock_kernel, sc_core::sc_curr_simcontext);
    sc_core::sc_start(sc_core::sc_time::from_value(1000));
    EXPECT_EQ(models::sim_now(), before + 1000);
}
