// Strict parsers and formatters for the unit strings of scenario files: sizes ("64KiB"),
// times ("250ns", converted exactly to integer picoseconds), frequencies ("10kHz") and
// bandwidths ("4GB/s"). A bare number is never accepted: every quantity carries its unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ringsim::config {

// A parsed quantity, or why not. `error` completes the sentence "expected ...", so the
// loader can use it verbatim, e.g. "a time that is a whole number of picoseconds".
template <typename T> struct UnitResult {
    std::optional<T> value;
    std::string error;
    explicit operator bool() const { return value.has_value(); }
};

// What each quantity looks like, as the phrase after "expected" in error messages.
extern const char* const kSizeSyntax; // a size with a unit (B, KiB, ...), e.g. "64KiB"
extern const char* const kTimeSyntax; // a time with a unit (ps, ns, ...), e.g. "250ns"
// A distributed time: a time, or one of the distribution objects, named.
extern const char* const kTimeDistributionSyntax;
extern const char* const kFrequencySyntax; // a frequency with a unit (Hz, ...), e.g. "10kHz"
extern const char* const kBandwidthSyntax; // a bandwidth with a unit (B/s, ...), e.g. "4GB/s"

// Non-negative integer + B|KiB|MiB|GiB|KB|MB|GB (KB/MB/GB are powers of 1000) -> bytes.
UnitResult<uint64_t> parse_size(std::string_view text);
// Decimal number + ps|ns|us|ms|s -> picoseconds; must be exact and fit in 64 bits.
UnitResult<uint64_t> parse_time(std::string_view text);
// Decimal number + Hz|kHz|MHz|GHz -> Hz.
UnitResult<double> parse_frequency(std::string_view text);
// Decimal number + B/s|KB/s|MB/s|GB/s|KiB/s|MiB/s|GiB/s -> bytes per second.
UnitResult<double> parse_bandwidth(std::string_view text);

// The shortest string that parse_size reads back as exactly `bytes` ("64KiB", "1MB", "100B").
std::string format_size(uint64_t bytes);
// The shortest string that parse_time reads back as exactly `ps` ("250ns", "1.5us").
std::string format_time(uint64_t ps);

} // namespace ringsim::config
