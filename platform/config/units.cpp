// Unit strings of scenario files: strict parsing into bytes, picoseconds, Hz and bytes/s,
// and the shortest exact formatting back. Times use integer arithmetic only, so "1.5us"
// is exactly 1500000 ps and "0.1ps" is rejected rather than rounded.
#include "platform/config/units.h"

#include <charconv>
#include <limits>
#include <utility>

namespace ringsim::config {

const char* const kSizeSyntax = "a size with a unit (B, KiB, MiB, GiB, KB, MB, GB), e.g. \"64KiB\"";
const char* const kTimeSyntax = "a time with a unit (ps, ns, us, ms, s), e.g. \"250ns\"";
const char* const kTimeDistributionSyntax =
    "a time with a unit (ps, ns, us, ms, s), e.g. \"250ns\", or a distribution: "
    "{\"distribution\": \"exponential\", \"mean\": TIME}, "
    "{\"distribution\": \"lognormal\", \"median\": TIME, \"sigma\": NUMBER}, "
    "{\"distribution\": \"empirical\", \"histogram\": [[TIME, COUNT], ...]} or "
    "{\"distribution\": \"empirical\", \"file\": \"FILE.csv\"}";
const char* const kFrequencySyntax = "a frequency with a unit (Hz, kHz, MHz, GHz), e.g. \"10kHz\"";
const char* const kBandwidthSyntax =
    "a bandwidth with a unit (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s), e.g. \"4GB/s\"";

namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

struct Unit {
    std::string_view name;
    uint64_t scale;
};

// Binary units first: format_size prefers them when two forms are equally short.
constexpr Unit kSizeUnits[] = {{"GiB", 1ULL << 30},
                               {"MiB", 1ULL << 20},
                               {"KiB", 1ULL << 10},
                               {"GB", 1000000000},
                               {"MB", 1000000},
                               {"KB", 1000},
                               {"B", 1}};
// Largest first: format_time prefers the larger unit when two forms are equally short.
constexpr Unit kTimeUnits[] = {
    {"s", 1000000000000ULL}, {"ms", 1000000000}, {"us", 1000000}, {"ns", 1000}, {"ps", 1}};
constexpr Unit kFrequencyUnits[] = {
    {"Hz", 1}, {"kHz", 1000}, {"MHz", 1000000}, {"GHz", 1000000000}};
constexpr Unit kBandwidthUnits[] = {
    {"B/s", 1},           {"KB/s", 1000},        {"MB/s", 1000000},
    {"GB/s", 1000000000}, {"KiB/s", 1ULL << 10}, {"MiB/s", 1ULL << 20},
    {"GiB/s", 1ULL << 30}};

// "12.50us" -> integer "12", fraction "50", unit "us". Only plain decimals: no sign, no
// exponent, no spaces, digits on both sides of a point.
struct Split {
    std::string_view integer, fraction, unit;
};

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

std::optional<Split> split_decimal(std::string_view text) {
    size_t i = 0;
    while (i < text.size() && is_digit(text[i]))
        ++i;
    if (i == 0) return std::nullopt;
    Split s{text.substr(0, i), {}, {}};
    if (i < text.size() && text[i] == '.') {
        const size_t start = ++i;
        while (i < text.size() && is_digit(text[i]))
            ++i;
        if (i == start) return std::nullopt;
        s.fraction = text.substr(start, i - start);
    }
    s.unit = text.substr(i);
    return s;
}

template <size_t N> std::optional<uint64_t> find_scale(const Unit (&units)[N], std::string_view u) {
    for (const Unit& unit : units)
        if (unit.name == u) return unit.scale;
    return std::nullopt;
}

std::optional<uint64_t> parse_u64(std::string_view digits) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return v;
}

bool mul_overflows(uint64_t a, uint64_t b) {
    return b != 0 && a > kU64Max / b;
}

template <typename T> UnitResult<T> fail(std::string why) {
    return {std::nullopt, std::move(why)};
}

template <size_t N>
UnitResult<double> parse_scaled_double(std::string_view text, const Unit (&units)[N],
                                       const char* syntax) {
    const auto split = split_decimal(text);
    if (!split) return fail<double>(syntax);
    const auto scale = find_scale(units, split->unit);
    if (!scale) return fail<double>(syntax);
    const std::string_view number = text.substr(0, text.size() - split->unit.size());
    double v = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || end != number.data() + number.size()) return fail<double>(syntax);
    return {v * static_cast<double>(*scale), {}};
}

uint64_t pow10(size_t n) {
    uint64_t p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

size_t digits_of(uint64_t scale) {
    size_t n = 0;
    while (scale >= 10)
        scale /= 10, ++n;
    return n;
}

} // namespace

UnitResult<uint64_t> parse_size(std::string_view text) {
    const auto split = split_decimal(text);
    if (!split || !find_scale(kSizeUnits, split->unit)) return fail<uint64_t>(kSizeSyntax);
    if (!split->fraction.empty())
        return fail<uint64_t>("a size as a whole count of its unit, e.g. \"1536B\" "
                              "rather than \"1.5KiB\"");
    const uint64_t scale = *find_scale(kSizeUnits, split->unit);
    const auto count = parse_u64(split->integer);
    if (!count || mul_overflows(*count, scale))
        return fail<uint64_t>("a size that fits in 64 bits (below 16EiB)");
    return {*count * scale, {}};
}

UnitResult<uint64_t> parse_time(std::string_view text) {
    const auto split = split_decimal(text);
    if (!split || !find_scale(kTimeUnits, split->unit)) return fail<uint64_t>(kTimeSyntax);
    const uint64_t scale = *find_scale(kTimeUnits, split->unit);
    std::string_view fraction = split->fraction;
    while (!fraction.empty() && fraction.back() == '0')
        fraction.remove_suffix(1);
    // With trailing zeros gone the last fraction digit is non-zero, so any digit finer than
    // the unit's picosecond resolution leaves a remainder.
    if (fraction.size() > digits_of(scale))
        return fail<uint64_t>("a time that is a whole number of picoseconds (1ps resolution)");
    const char* overflow = "a time that fits in 64 bits of picoseconds (below about 213 days)";
    const auto whole = parse_u64(split->integer);
    if (!whole || mul_overflows(*whole, scale)) return fail<uint64_t>(overflow);
    uint64_t ps = *whole * scale;
    if (!fraction.empty()) {
        const uint64_t frac = *parse_u64(fraction) * (scale / pow10(fraction.size()));
        if (ps > kU64Max - frac) return fail<uint64_t>(overflow);
        ps += frac;
    }
    return {ps, {}};
}

UnitResult<double> parse_frequency(std::string_view text) {
    return parse_scaled_double(text, kFrequencyUnits, kFrequencySyntax);
}

UnitResult<double> parse_bandwidth(std::string_view text) {
    return parse_scaled_double(text, kBandwidthUnits, kBandwidthSyntax);
}

std::string format_size(uint64_t bytes) {
    std::string best;
    for (const Unit& unit : kSizeUnits) {
        if (bytes % unit.scale != 0) continue;
        std::string s = std::to_string(bytes / unit.scale) + std::string(unit.name);
        if (best.empty() || s.size() < best.size()) best = std::move(s);
    }
    return best;
}

std::string format_time(uint64_t ps) {
    std::string best;
    bool best_has_point = true;
    for (const Unit& unit : kTimeUnits) {
        std::string s = std::to_string(ps / unit.scale);
        const uint64_t rem = ps % unit.scale;
        if (rem != 0) {
            std::string frac = std::to_string(rem);
            frac.insert(0, digits_of(unit.scale) - frac.size(), '0');
            while (frac.back() == '0')
                frac.pop_back();
            s += "." + frac;
        }
        s += unit.name;
        // Shortest wins; at equal length "100ns" reads better than "0.1us".
        const bool shorter = best.empty() || s.size() < best.size() ||
                             (s.size() == best.size() && best_has_point && rem == 0);
        if (shorter) best = std::move(s), best_has_point = rem != 0;
    }
    return best;
}

} // namespace ringsim::config
