// A whole decimal number from the command line, in [min, max]: what explore's --runs and
// --jobs and sweep's --jobs and --shard take. Boost's own conversion would wrap "-1" around.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ringsim::platform {

inline std::optional<uint64_t> parse_whole_number(const std::string& s, uint64_t min,
                                                  uint64_t max) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const uint64_t v = std::stoull(s);
    if (v < min || v > max) return std::nullopt;
    return v;
}

} // namespace ringsim::platform
