// The TMC-ETR's circular-buffer state computed on read: a fluid FIFO queue between a
// piecewise-constant input rate and the memory write bandwidth. See etr_hw.h.
#include "models/coresight/etr_hw.h"

#include "models/coresight/etr_sg_table.h"
#include "models/coresight/formatter.h"
#include "models/coresight/tmc_regs.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models::coresight {

namespace {

constexpr uint64_t kUnitsPerByte = kPicosPerSecond; // r bytes/s moves r units each ps

// Whole bytes/s, rounded to nearest; negative, NaN and infinite rates carry nothing.
uint64_t whole_rate(double bytes_per_second) {
    if (!std::isfinite(bytes_per_second) || bytes_per_second <= 0) return 0;
    if (bytes_per_second >= 1.8e19) return 0; // beyond uint64: refuse rather than wrap
    return static_cast<uint64_t>(std::llround(bytes_per_second));
}

uint64_t frames_floor(uint64_t bytes) {
    return bytes / kFrameSize * kFrameSize;
}
uint64_t frames_ceil(uint64_t bytes) {
    return (bytes + kFrameSize - 1) / kFrameSize * kFrameSize;
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
    : config_(std::move(config)), bandwidth_(bandwidth) {}

EtrHw::Segment EtrHw::advance(const Segment& s, Picos t) const {
    Segment out = s;
    out.start = t;
    const Units dt = t - s.start;
    const Units cap = static_cast<Units>(config_.fifo_bytes) * kUnitsPerByte;
    if (s.rate > bandwidth_) {
        // Memory runs flat out; the surplus fills the FIFO, then overflows.
        const Units queued = s.fifo + (s.rate - bandwidth_) * dt;
        out.fifo = std::min(queued, cap);
        out.overflow += queued - out.fifo;
        out.written += bandwidth_ * dt;
    } else {
        // Memory takes the input and drains the FIFO with the spare bandwidth.
        const Units drain = (bandwidth_ - s.rate) * dt;
        out.fifo = s.fifo > drain ? s.fifo - drain : 0;
        out.written += s.rate * dt + (s.fifo - out.fifo);
    }
    return out;
}

EtrHw::Segment EtrHw::state_at(Picos t) const {
    if (segments_.empty() || t < segments_.front().start) return Segment{t};
    // The last segment starting at or before t.
    auto it = std::upper_bound(segments_.begin(), segments_.end(), t,
                               [](Picos v, const Segment& s) { return v < s.start; });
    return advance(*std::prev(it), t);
}

bool EtrHw::set_input(Picos t, double bytes_per_second) {
    if (!accepts(t)) return false;
    last_change_ = t;
    input_rate_ = whole_rate(bytes_per_second);
    if (!capturing_ || stopped_) return true; // remembered for the next enable
    Segment next = advance(segments_.back(), t);
    next.rate = input_rate_;
    if (segments_.back().start == t)
        segments_.back() = next;
    else
        segments_.push_back(next);
    return true;
}

bool EtrHw::enable(Picos t) {
    if (!accepts(t)) return false;
    last_change_ = t;
    capturing_ = true;
    stopped_ = false;
    ready_at_ = 0;
    final_bytes_ = 0;
    memerr_ = false;
    segments_.assign(1, Segment{t, input_rate_});
    return true;
}

std::optional<Picos> EtrHw::flush_and_stop(Picos t, Picos flush_latency) {
    if (!capturing_ || stopped_ || !accepts(t)) return std::nullopt;
    const uint64_t rate = input_rate_;
    set_input(t, 0);    // the sources are flushed: nothing more arrives after t
    input_rate_ = rate; // ...but they keep their rate for the next enable
    const Segment& s = segments_.back();
    const Units drain_ps = (s.fifo + bandwidth_ - 1) / bandwidth_;
    ready_at_ = t + std::max<Picos>(flush_latency, static_cast<Picos>(drain_ps));
    stopped_ = true;
    const Segment done = advance(s, ready_at_);
    final_bytes_ = frames_ceil(static_cast<uint64_t>(done.written / kUnitsPerByte));
    return ready_at_;
}

uint64_t EtrHw::bytes_written(Picos t) const {
    if (stopped_ && t >= ready_at_) return final_bytes_;
    return frames_floor(static_cast<uint64_t>(state_at(t).written / kUnitsPerByte));
}

uint64_t EtrHw::overflow_bytes(Picos t) const {
    return static_cast<uint64_t>(state_at(t).overflow / kUnitsPerByte);
}

uint64_t EtrHw::fifo_level(Picos t) const {
    return static_cast<uint64_t>(state_at(t).fifo / kUnitsPerByte);
}

Addr EtrHw::offset_to_addr(uint64_t offset) const {
    if (config_.sg_pages.empty()) return config_.dba + offset;
    return sg_offset_to_addr(config_.sg_pages, offset).value_or(0);
}

uint32_t EtrHw::sts(Picos t) const {
    uint32_t v = 0;
    if (full(t)) v |= tmc::STS_Full;
    if (ready(t)) v |= tmc::STS_TMCReady;
    if (memerr_) v |= tmc::STS_MemErr;
    return v;
}

} // namespace ringsim::models::coresight
