// When the workload's events happen: periodic, Poisson, or bursty (bursts of back-to-back
// events whose starts form a Poisson process with the same mean rate). Plain C++: it says
// when, the writer process decides what to do then.
#pragma once

#include "models/common/rng.h"
#include "models/common/types.h"

namespace ringsim::models {

enum class ArrivalKind { periodic, poisson, bursty };

struct ArrivalParams {
    ArrivalKind kind = ArrivalKind::periodic;
    double rate_hz = 0;       // mean events per second
    Picos start = 0;          // no event before this time
    bool random_phase = true; // periodic: first event at start + a seeded phase < period
    uint64_t burst_size = 1;  // bursty: events per burst (1 for the other kinds)
    Picos burst_spacing = 0;  // bursty: time between events inside a burst
};

class ArrivalProcess {
public:
    ArrivalProcess(const ArrivalParams& p, uint64_t seed);
    // The time of the next event; never earlier than the one before.
    Picos next();

private:
    ArrivalParams m_p;
    Rng m_rng;
    Picos m_period; // mean time between events (between bursts when bursty)
    Picos m_t;
    uint64_t m_left_in_burst = 0;
    bool m_first = true;
};

} // namespace ringsim::models
