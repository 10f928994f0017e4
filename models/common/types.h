// Basic vocabulary shared by every model: addresses, simulated time in picoseconds, and the
// error a model raises when a run cannot go on (the CLI maps it to exit code 3).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ringsim::models {

using Addr = uint64_t;  // a simulated physical (kernel) or user address
using Picos = uint64_t; // simulated time; the SystemC resolution is fixed at 1 ps

constexpr Picos kPicosPerNs = 1000;
constexpr Picos kPicosPerSecond = 1000ull * 1000 * 1000 * 1000;

// The end of simulated time. Sums of times saturate here instead of wrapping past 2^64 ps
// (about 213 days) to an early instant: an arrival after the end of time never comes.
constexpr Picos kNever = ~Picos(0);
inline Picos add_picos(Picos a, Picos b) {
    return b > kNever - a ? kNever : a + b;
}
// A count of picoseconds from a double, rounded half away from zero as std::llround does;
// 0 below zero (and for NaN), kNever at or past 2^64.
inline Picos picos_from(double ps) {
    if (!(ps > 0)) return 0;
    if (ps >= 18446744073709551616.0) return kNever;
    if (ps < 9.2e18) return static_cast<Picos>(std::llround(ps)); // within long long
    return static_cast<Picos>(ps); // an integer already at this magnitude
}

class ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A model parameter its builder must set. Models state no defaults of their own for what a
// scenario sets (the params table, platform/config/params.cpp, is the one place): a field
// left unset is caught here, at construction, rather than run with a made-up value.
inline void require_param(bool set, const char* what) {
    if (!set) throw ModelError(std::string("model parameter not set: ") + what);
}

// Picoseconds needed to move `bytes` at `bytes_per_second`, rounded up: a cost is never free.
inline Picos transfer_time(uint64_t bytes, double bytes_per_second) {
    if (bytes == 0) return 0;
    const double ps = static_cast<double>(bytes) * 1e12 / bytes_per_second;
    if (!(ps < 18446744073709551616.0)) return kNever; // beyond the end of time
    const auto whole = static_cast<Picos>(ps);
    return whole + (static_cast<double>(whole) < ps ? 1 : 0);
}

} // namespace ringsim::models
