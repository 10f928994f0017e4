// The TMC-ETR's register state in circular-buffer mode, computed on read (the VCML sp804
// "compute on read" pattern): nothing ticks; rwp(t), sts(t)... are functions of the arrivals
// since the last enable and of t. KERNEL-SEMANTICS E3-E5 (what __tmc_etr_enable_hw,
// tmc_flush_and_stop and tmc_sync_etr_buf see); CoreSight TMC TRM (DDI 0461) "Circular Buffer
// mode", STS, RRP/RWP.
// The model: formatted trace reaches the sink in batches of whole 16-byte frames (arrive), each
// spread evenly over the interval since the previous arrival (or the enable). The sink writes
// to memory at up to the write bandwidth bw; what it cannot write yet queues in an internal
// FIFO of floor(fifo_bytes / 16) frames, and what does not fit is lost (overflow, as when ATB
// back-pressure makes the ETM overflow), the newest frames of the batch first.
//  - Each interval is netted: drained = min(queued before + batch, capacity), the rest stays
//    queued up to the FIFO size. With a constant input rate r inside the interval this is the
//    fluid queue at the interval's end: for r > bw the level only rises (then sits at the FIFO
//    size), so the memory runs flat out and the end level is the peak; for r <= bw the level
//    only falls, so nothing overflows and the memory takes all it can. What the netting loses
//    is the time within an interval: a burst inside it is smoothed.
//  - Amounts are exact integers in units of 1e-12 byte, so bw bytes/s moves bw units each ps
//    (bw is rounded to a whole byte/s once, at create). Memory writes whole frames only: the
//    part of the capacity short of a frame is kept as credit for the next interval, so rounding
//    neither loses nor invents bandwidth while the FIFO stays busy. When the FIFO ran dry the
//    unused capacity is dropped with the credit: an idle memory port saves no bandwidth.
//  - Reads at or after the latest arrival see the FIFO go on draining at bw (no new input until
//    the next arrive); a read between two arrivals returns the state at the earlier one, which
//    is exact at arrival instants only (registers are read at or after the latest arrival).
//  - flush_and_stop(t, latency): the caller first delivers its last batch with arrive(t, ...);
//    input stops at t, the FIFO drains at bw, and TMCReady rises at t + max(latency, drain
//    time) (the flush handshake and the drain overlap), by when every queued frame is written.
//  - Full: the write pointer wrapped at least once (bytes written >= buffer size). RRP is the
//    start of valid data as the driver reads it: the base before the wrap, RWP after it.
//  - enable(t) restarts at the buffer base with Full, MemErr and the counters clear (E3) and
//    forgets the previous capture; times before the last enable read as that fresh state.
// Leaves out: software/hardware FIFO modes, triggers (STS.Triggered never set, TRG unused),
// StopOnFl on a full buffer, register writes other than enable/flush, a MemErr stopping the
// capture (memerr is a flag the sink sets, e.g. after a failed SG walk), 32-byte memory width.
#pragma once

#include "models/common/types.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace ringsim::models::coresight {

struct EtrHwConfig {
    uint64_t buffer_bytes = 0;       // RSZ * 4: a non-zero multiple of kFrameSize
    double mem_bytes_per_second = 0; // memory write bandwidth: at least 1 byte/s
    uint64_t fifo_bytes = 0;         // queue above the bandwidth, in whole frames; 0 = none
    Addr dba = 0;                    // DBALO/HI: the flat buffer (ignored with sg_pages)
    std::vector<Addr> sg_pages;      // ETR_SG: the data pages in buffer order, or empty
};

class EtrHw {
public:
    // nullopt when the config is unusable (see EtrHwConfig).
    static std::optional<EtrHw> create(EtrHwConfig config);

    uint32_t rsz() const { return static_cast<uint32_t>(m_config.buffer_bytes / 4); }
    uint64_t buffer_bytes() const { return m_config.buffer_bytes; }

    // `bytes` (whole frames) of formatted trace reached the sink spread evenly over (the
    // previous arrival or the enable, t]. Returns the bytes accepted; the rest overflowed the
    // FIFO and is lost. Ignored (returns 0) when not capturing, after flush_and_stop, when t is
    // before the previous change, or when bytes is not a multiple of kFrameSize.
    uint64_t arrive(Picos t, uint64_t bytes);
    // CTL.TraceCaptEn 0 -> 1 at t. False (ignored) when t is before the previous change.
    // `busy`: the ETR writes nothing for this long after the enable (an SG table walk);
    // trace arriving meanwhile waits in the FIFO.
    bool enable(Picos t, Picos busy = 0);
    // FFCR.StopOnFl + FlushMan at t, after the last arrive(t, ...); returns when STS.TMCReady
    // rises. nullopt when capture is not running or t is before the previous change.
    std::optional<Picos> flush_and_stop(Picos t, Picos flush_latency);

    void set_memerr(bool on) { m_memerr = on; }
    bool memerr() const { return m_memerr; }

    // Bytes written into memory since the enable, unwrapped, in whole frames.
    uint64_t bytes_written(Picos t) const;
    // Input bytes lost because the FIFO was full.
    uint64_t overflow_bytes(Picos t) const;
    // Bytes waiting in the FIFO (whole frames).
    uint64_t fifo_level(Picos t) const;
    // Totals since the enable: arrived == written + queued + overflowed.
    uint64_t bytes_arrived() const { return m_arrived; }
    uint64_t overflow_total() const { return m_states.empty() ? 0 : m_states.back().overflow; }

    uint64_t write_offset(Picos t) const { return bytes_written(t) % m_config.buffer_bytes; }
    uint64_t read_offset(Picos t) const { return full(t) ? write_offset(t) : 0; }
    bool full(Picos t) const { return bytes_written(t) >= m_config.buffer_bytes; }
    bool ready(Picos t) const { return !m_capturing || (m_stopped && t >= m_ready_at); }
    // RWP / RRP as 64-bit addresses (RWPHI:RWP); the SG page address for ETR_SG.
    Addr rwp(Picos t) const { return offset_to_addr(write_offset(t)); }
    Addr rrp(Picos t) const { return offset_to_addr(read_offset(t)); }
    uint32_t sts(Picos t) const;

private:
    // 1e-12 byte; bytes * 1e12 overflows 64 bits within seconds of trace.
    __extension__ typedef unsigned __int128 Units;

    // The state right after an arrival (or the enable, or the stop) at `at`.
    struct State {
        Picos at = 0;
        uint64_t written = 0;  // bytes, whole frames
        uint64_t level = 0;    // bytes queued in the FIFO, whole frames
        uint64_t overflow = 0; // bytes lost
        uint64_t credit = 0;   // units of drain capacity short of a frame (< 16e12)
    };

    explicit EtrHw(EtrHwConfig config, uint64_t bandwidth);
    State state_at(Picos t) const;
    State drain(const State& s, Picos t, uint64_t bytes) const;
    void record(const State& s);
    Addr offset_to_addr(uint64_t offset) const;
    bool accepts(Picos t) const { return t >= m_last_change; }

    EtrHwConfig m_config;
    uint64_t m_bandwidth; // bytes/s == units/ps
    uint64_t m_fifo_room; // the FIFO size in whole frames, in bytes
    Picos m_last_change = 0;
    bool m_capturing = false; // enabled at least once (TraceCaptEn, until the stop)
    bool m_stopped = false;
    Picos m_ready_at = 0;
    bool m_memerr = false;
    uint64_t m_arrived = 0;
    // The current capture, one per arrival instant, by time: the enable, then the newest
    // kStatesKept - 1 (a deque: forgetting the oldest after the enable moves one entry).
    std::deque<State> m_states;
    // Arrivals kept for reads of past times: the enable plus the latest ones; a read between
    // two forgotten arrivals is a ModelError.
    static constexpr size_t kStatesKept = 1024;
    bool m_forgot_any = false;
    Picos m_busy_until = 0;
};

} // namespace ringsim::models::coresight
