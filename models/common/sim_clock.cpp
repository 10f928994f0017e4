#include "models/common/sim_clock.h"

#include <systemc>

#include <cstring>
#include <type_traits>

namespace ringsim::models {

namespace detail {

namespace {
const Picos kNoKernel = 0; // before the first kernel, and after one is forgotten: time 0
} // namespace

const sc_core::sc_simcontext* g_clock_kernel = nullptr;
const void* g_clock = &kNoKernel;

// sc_time is its value alone, an unsigned 64-bit sc_time::value_type (unsigned long long on
// x86-64 and aarch64, uint64_t on other Linux targets), so the kernel's time stamp begins with that
// value's 8 bytes (pointer-interconvertible with its only member), which sim_now() copies into a
// Picos.
using ScValue = sc_core::sc_time::value_type;
static_assert(std::is_standard_layout_v<sc_core::sc_time> &&
                  sizeof(sc_core::sc_time) == sizeof(ScValue) && sizeof(ScValue) == sizeof(Picos) &&
                  std::is_unsigned_v<ScValue>,
              "sim_now() reads sc_time's value in place");

Picos attach_clock() {
    // The current kernel, made if there is none (as sc_time_stamp() would make it).
    const sc_core::sc_simcontext* k = sc_core::sc_get_curr_simcontext();
    g_clock = &k->time_stamp();
    g_clock_kernel = k;
    Picos now;
    std::memcpy(&now, g_clock, sizeof now);
    return now;
}

} // namespace detail

void sim_clock_forget_kernel() {
    detail::g_clock_kernel = nullptr;
    detail::g_clock = &detail::kNoKernel;
}

} // namespace ringsim::models
