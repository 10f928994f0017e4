// The TMC-ETR's circular-buffer state computed on read: a FIFO between batches of arriving
// frames and the memory write bandwidth, netted per interval between arrivals. See etr_hw.h.
#include "models/coresight/etr_hw.h"

#include "models/coresight/etr_sg_table.h"
#include "models/coresight/formatter.h"
#include "models/coresight/tmc_regs.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models::coresight {

namespace {

constexpr uint64_t kUnitsPerByte = kPicosPerSecond; // r bytes/s moves r units each ps
constexpr uint64_t kUnitsPerFrame = kFrameSize * kUnitsPerByte;

// Whole bytes/s, rounded to nearest; negative, NaN and infinite rates are none.
uint64_t whole_rate(double bytes_per_second) {
    if (!std::isfinite(bytes_per_second) || bytes_per_second <= 0) return 0;
    if (bytes_per_second >= 1.8e19) return 0; // beyond uint64: refuse rather than wrap
    return static_cast<uint64_t>(std::llround(bytes_per_second));
}

uint64_t frames_floor(uint64_t bytes) {
    return bytes / kFrameSize * kFrameSize;
}

} // namespace

std::optional<EtrHw> EtrHw::create(EtrHwConfig config) {
    const uint64_t bandwidth = whole_rate(config.mem_bytes_per_second);
    if (config.buffer_bytes == 0 || config.buffer_bytes % kFrameSize != 0) return std::nullopt;
    if (config.buffer_bytes / 4 > UINT32_MAX || bandwidth == 0) return std::nullopt;
    if (!config.sg_pages.empty() && config.sg_pages.size() * kSgPageSize != config.buffer_bytes)
        return std::nullopt;
    return EtrHw(std::move(config), bandwidth);
}

EtrHw::EtrHw(EtrHwConfig config, uint64_t bandwidth)
    : m_config(std::move(config)), m_bandwidth(bandwidth),
      m_fifo_room(frames_floor(m_config.fifo_bytes)) {}

EtrHw::State EtrHw::drain(const State& s, Picos t, uint64_t bytes) const {
    State out = s;
    out.at = t;
    // Nothing is written before the enable's table walk is done (m_busy_until).
    const Picos from = std::max(s.at, m_busy_until);
    const Units capacity = static_cast<Units>(m_bandwidth) * (t > from ? t - from : 0) + s.credit;
    const uint64_t queued = s.level + bytes;
    uint64_t drained = 0;
    if (capacity >= static_cast<Units>(queued) * kUnitsPerByte) {
        // The FIFO ran dry: the rest of the capacity went unused and is not saved.
        drained = queued;
        out.credit = 0;
    } else {
        // Busy all along: whole frames written, the part of one carried to the next interval.
        drained = static_cast<uint64_t>(capacity / kUnitsPerFrame) * kFrameSize;
        out.credit = static_cast<uint64_t>(capacity - static_cast<Units>(drained) * kUnitsPerByte);
    }
    out.written += drained;
    out.level = queued - drained;
    if (out.level > m_fifo_room) { // both whole frames, so is the overflow
        out.overflow += out.level - m_fifo_room;
        out.level = m_fifo_room;
    }
    return out;
}

EtrHw::State EtrHw::state_at(Picos t) const {
    if (m_states.empty() || t < m_states.front().at) return State{t};
    if (t >= m_states.back().at) return drain(m_states.back(), t, 0);
    // Between arrivals: the state at the last one at or before t. Older arrivals than the
    // kept ones are gone: reading their time is a model error, not a guess.
    if (m_forgot_any && t > m_states.front().at && t < m_states[1].at)
        throw ModelError("etr: register read of a time older than the kept arrivals");
    auto it = std::upper_bound(m_states.begin(), m_states.end(), t,
                               [](Picos v, const State& s) { return v < s.at; });
    return *std::prev(it);
}

void EtrHw::record(const State& s) {
    m_last_change = s.at;
    if (!m_states.empty() && m_states.back().at == s.at) {
        m_states.back() = s;
        return;
    }
    // A bounded history: a capture of a whole run (system-wide) arrives once per burst.
    if (m_states.size() == kStatesKept) {
        m_states.erase(m_states.begin() + 1); // keep the enable
        m_forgot_any = true;
    }
    m_states.push_back(s);
}

uint64_t EtrHw::arrive(Picos t, uint64_t bytes) {
    if (!m_capturing || m_stopped || !accepts(t) || bytes % kFrameSize != 0) return 0;
    const State next = drain(m_states.back(), t, bytes);
    const uint64_t lost = next.overflow - m_states.back().overflow;
    record(next);
    m_arrived += bytes;
    return bytes - lost;
}

bool EtrHw::enable(Picos t, Picos busy) {
    if (!accepts(t)) return false;
    m_busy_until = t + busy;
    m_capturing = true;
    m_stopped = false;
    m_ready_at = 0;
    m_memerr = false;
    m_arrived = 0;
    m_states.clear();
    m_forgot_any = false;
    record(State{t});
    return true;
}

std::optional<Picos> EtrHw::flush_and_stop(Picos t, Picos flush_latency) {
    if (!m_capturing || m_stopped || !accepts(t)) return std::nullopt;
    const State s = drain(m_states.back(), t, 0); // nothing more arrives after t
    record(s);
    // Until the last queued frame is written; the credit is capacity already earned.
    const Units need = static_cast<Units>(s.level) * kUnitsPerByte - s.credit;
    const Units drain_ps = s.level == 0 ? 0 : (need + m_bandwidth - 1) / m_bandwidth;
    const Picos drain_from = std::max(t, m_busy_until); // a table walk still running
    m_ready_at = std::max<Picos>(t + flush_latency, drain_from + static_cast<Picos>(drain_ps));
    m_stopped = true;
    return m_ready_at;
}

uint64_t EtrHw::bytes_written(Picos t) const {
    return state_at(t).written;
}

uint64_t EtrHw::overflow_bytes(Picos t) const {
    return state_at(t).overflow;
}

uint64_t EtrHw::fifo_level(Picos t) const {
    return state_at(t).level;
}

Addr EtrHw::offset_to_addr(uint64_t offset) const {
    if (m_config.sg_pages.empty()) return m_config.dba + offset;
    return sg_offset_to_addr(m_config.sg_pages, offset).value_or(0);
}

uint32_t EtrHw::sts(Picos t) const {
    uint32_t v = 0;
    if (full(t)) v |= tmc::STS_Full;
    if (ready(t)) v |= tmc::STS_TMCReady;
    if (m_memerr) v |= tmc::STS_MemErr;
    return v;
}

} // namespace ringsim::models::coresight
