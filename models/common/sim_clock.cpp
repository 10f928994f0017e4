#include "models/common/sim_clock.h"

#include <systemc>

#include <type_traits>

namespace ringsim::models {

namespace detail {

namespace {
const unsigned long long kNoKernel = 0; // before the first kernel: time 0
} // namespace

const sc_core::sc_simcontext* g_clock_kernel = nullptr;
const unsigned long long* g_clock = &kNoKernel;

// sc_time is its value alone, an sc_time::value_type, so a pointer to the kernel's time
// stamp is a pointer to that value (pointer-interconvertible with its only member), read
// as the type it is.
static_assert(std::is_standard_layout_v<sc_core::sc_time> &&
                  sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type) &&
                  std::is_same_v<sc_core::sc_time::value_type, unsigned long long>,
              "sim_now() reads sc_time's value in place");

Picos attach_clock() {
    // The current kernel, made if there is none yet, as sc_time_stamp() would.
    const sc_core::sc_simcontext* k = sc_core::sc_get_curr_simcontext();
    g_clock = reinterpret_cast<const unsigned long long*>(&k->time_stamp());
    g_clock_kernel = k;
    return Picos(*g_clock);
}

} // namespace detail

} // namespace ringsim::models
