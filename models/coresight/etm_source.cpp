#include "models/coresight/etm_source.h"

#include "models/coresight/etm_packets.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models::coresight {

namespace {
uint64_t whole(double r) {
    return std::isfinite(r) && r > 0 ? static_cast<uint64_t>(std::llround(r)) : 0;
}
} // namespace

TraceRate::TraceRate(double rate, const std::vector<std::pair<Picos, double>>& phases) {
    m_steps.push_back({0, whole(rate)});
    for (const auto& [at, r] : phases) {
        if (at == 0)
            m_steps.front().rate = whole(r);
        else
            m_steps.push_back({at, whole(r)});
    }
}

TraceUnits TraceRate::units_until(Picos t) const {
    // bytes/s * ps = 1e-12 bytes.
    TraceUnits units = 0;
    for (size_t i = 0; i < m_steps.size() && m_steps[i].at < t; ++i) {
        const Picos end = i + 1 < m_steps.size() ? std::min(t, m_steps[i + 1].at) : t;
        units += static_cast<TraceUnits>(m_steps[i].rate) * (end - m_steps[i].at);
    }
    return units;
}

uint64_t TraceRate::count_at(Picos t) const {
    constexpr TraceUnits kPacketUnits = static_cast<TraceUnits>(kCountPacketSize) * kPicosPerSecond;
    return static_cast<uint64_t>(units_until(t) / kPacketUnits);
}

uint64_t TraceRate::rate_at(Picos t) const {
    uint64_t r = 0;
    for (const Step& s : m_steps)
        if (s.at <= t) r = s.rate;
    return r;
}

Picos TraceRate::next_change(Picos t) const {
    for (const Step& s : m_steps)
        if (s.at > t) return s.at;
    return 0;
}

const char* to_string(UntracedCause c) {
    switch (c) {
    case UntracedCause::stop_window:
        return "stop_window";
    case UntracedCause::aux_disabled:
        return "aux_disabled";
    }
    return "?";
}

EtmSource::EtmSource(std::string name, uint8_t trace_id, const TraceRate& rate,
                     uint32_t sync_period_counts)
    : m_name(std::move(name)), m_rate(rate), m_stream(trace_id, sync_period_counts) {}

void EtmSource::start(Picos t, UntracedCause why_off) {
    if (m_stream.running()) return;
    const uint64_t first = m_rate.count_at(t);
    if (m_started_once && first > m_stream.next_count())
        m_untraced.push_back({m_stream.next_count(), first - m_stream.next_count(), why_off});
    m_started_once = true;
    m_started_at = t;
    m_stream.start(std::max(first, m_stream.next_count()));
}

uint64_t EtmSource::produce_until(Picos t) {
    if (m_stream.running()) {
        const uint64_t due = m_rate.count_at(t);
        if (due > m_stream.next_count()) m_stream.produce(due - m_stream.next_count());
    }
    return m_stream.size();
}

void EtmSource::add_untraced(Picos t0, Picos t1, UntracedCause why) {
    if (t1 > t0) m_untraced_counts[size_t(why)] += m_rate.count_at(t1) - m_rate.count_at(t0);
}

void EtmSource::stop(Picos t) {
    if (!m_stream.running()) return;
    produce_until(t);
    m_stream.stop();
    m_stopped_at = t;
}

} // namespace ringsim::models::coresight
