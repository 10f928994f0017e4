// A time that is drawn rather than fixed: the one form every distributed time of a scenario
// takes (consumer.wakeup_latency, consumer.per_record_cost, ...; docs/scenario-reference.md).
// Fixed, exponential (a mean), lognormal (a median and the sigma of the underlying normal),
// or empirical (times with their counts, e.g. a cyclictest histogram). A draw above `cap`
// (the scenario key's bound) is cut to it and counted by the caller, never silently.
// Plain C++; the draws come from the caller's seeded stream (rng.h), so runs repeat.
#pragma once

#include "models/common/rng.h"
#include "models/common/types.h"

#include <cstdint>
#include <vector>

namespace ringsim::models {

struct TimeDistribution {
    enum class Kind { fixed, exponential, lognormal, empirical };
    Kind kind = Kind::fixed;
    Picos value = 0;  // fixed: the time; exponential: the mean; lognormal: the median
    double sigma = 0; // lognormal: the standard deviation of ln(time)
    // empirical: the times, ascending, and the running total of their counts.
    std::vector<Picos> times;
    std::vector<uint64_t> cumulative;
    Picos cap = 0; // no draw above this; 0: no cap

    TimeDistribution() = default;
    // A fixed time is a distribution too: every draw is t.
    TimeDistribution(Picos t) : value(t) {} // NOLINT(google-explicit-constructor)
    bool is_fixed() const { return kind == Kind::fixed; }
    bool operator==(const TimeDistribution& o) const {
        return kind == o.kind && value == o.value && sigma == o.sigma && times == o.times &&
               cumulative == o.cumulative && cap == o.cap;
    }
    bool operator!=(const TimeDistribution& o) const { return !(*this == o); }
    // The distribution's mean (before the cap), in picoseconds.
    double mean() const;
    // One draw; `capped` is set when the draw was above cap and cut to it.
    Picos draw(Rng& rng, bool& capped) const;
};

} // namespace ringsim::models
