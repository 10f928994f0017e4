// The reduced suite: RINGSIM_REDUCED=1 in the environment makes the `long` tests run fewer
// runs, seeds, points or files. tools/check.sh sets it for its sanitizer pass, where a
// Debug build under AddressSanitizer and UBSan is one to two orders of magnitude slower:
// that pass checks memory and undefined behaviour on every code path the long tests
// reach, which a few runs of each do as well as thousands; the full statistical strength
// (an Allowed outcome seen within the stated runs, a loss fraction within its interval) is
// the release pass's job, which runs without RINGSIM_REDUCED and so at full strength.
//
// What a reduced test keeps: every "X must never happen" assertion (no violation, no failed
// run, a Forbidden outcome never seen), on fewer runs. A "X must be seen within N runs"
// assertion is kept where it still holds with the reduced count, and skipped (only when
// reduced, and said where) where it does not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ringsim::testing_support {

// Whether the suite runs reduced (RINGSIM_REDUCED=1).
inline bool reduced() {
    const char* v = std::getenv("RINGSIM_REDUCED");
    return v != nullptr && std::strcmp(v, "1") == 0;
}

// A run count: `full` normally; reduced, a tenth of it but at least `at_least` (and never
// more than `full`).
inline uint64_t reduced_count(uint64_t full, uint64_t at_least = 3) {
    if (!reduced()) return full;
    return std::min(full, std::max(full / 10, at_least));
}

} // namespace ringsim::testing_support
