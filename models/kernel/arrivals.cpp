#include "models/kernel/arrivals.h"

#include <cmath>

namespace ringsim::models {

ArrivalProcess::ArrivalProcess(const ArrivalParams& p, uint64_t seed)
    : m_p(p), m_rng(seed), m_t(p.start) {
    require_param(p.rate_hz > 0, "ArrivalParams.rate_hz");
    require_param(p.burst_size >= 1, "ArrivalParams.burst_size");
    const double per_event = 1e12 / p.rate_hz;
    const double burst = p.kind == ArrivalKind::bursty ? double(p.burst_size) : 1.0;
    m_period = picos_from(per_event * burst);
    if (m_period == 0) m_period = 1;
}

Picos ArrivalProcess::next() {
    switch (m_p.kind) {
    case ArrivalKind::periodic:
        // A seeded phase keeps CPUs with the same rate from firing in lockstep.
        if (m_first)
            m_t = add_picos(m_t, m_p.random_phase ? m_rng.below(m_period) : 0);
        else
            m_t = add_picos(m_t, m_period);
        break;
    case ArrivalKind::poisson:
        m_t = add_picos(m_t, picos_from(m_rng.exponential(double(m_period))));
        break;
    case ArrivalKind::bursty:
        if (m_left_in_burst > 0) {
            --m_left_in_burst;
            m_t = add_picos(m_t, m_p.burst_spacing);
        } else {
            m_t = add_picos(m_t, picos_from(m_rng.exponential(double(m_period))));
            m_left_in_burst = m_p.burst_size - 1;
        }
        break;
    }
    m_first = false;
    return m_t;
}

} // namespace ringsim::models
