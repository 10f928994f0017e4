// The TMC-ETR's register state in circular-buffer mode, computed on read from elapsed time
// (the VCML sp804 "compute on read" pattern): nothing ticks; rwp(t), sts(t)... are pure
// functions of the input-rate history since the last enable and of t. KERNEL-SEMANTICS E3-E5
// (what __tmc_etr_enable_hw, tmc_flush_and_stop and tmc_sync_etr_buf see); CoreSight TMC TRM
// (DDI 0461) "Circular Buffer mode", STS, RRP/RWP.
// The model: formatted trace arrives at a piecewise-constant byte rate (set_input); the sink
// writes it to memory at up to the memory write bandwidth; input above the bandwidth queues in
// an internal FIFO of fifo_bytes and, once that is full, the excess is counted as overflow
// (lost, as when ATB back-pressure makes the ETM overflow). Trace is a fluid in between:
//  - amounts are exact integers in units of 1e-12 byte (so r bytes/s = r units per ps); rates
//    are rounded to the nearest whole byte/s once, when given (negative or NaN -> 0);
//  - a byte counts once its last unit has arrived (floor), and RWP only advances by whole
//    16-byte frames (floor to kFrameSize): the formatter writes frames, never parts of one;
//  - flush_and_stop(t, latency): input stops at t, the FIFO drains at the bandwidth, TMCReady
//    rises at t + max(latency, drain time) (the flush handshake and the drain overlap); then
//    the partial frame is completed (padded, see formatter.h) and counted, and a fractional
//    byte left by the fluid model is dropped.
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
#include <optional>
#include <vector>

namespace ringsim::models::coresight {

struct EtrHwConfig {
    uint64_t buffer_bytes = 0;       // RSZ * 4: a non-zero multiple of kFrameSize
    double mem_bytes_per_second = 0; // memory write bandwidth: at least 1 byte/s
    uint64_t fifo_bytes = 0;         // input queued above the bandwidth before overflow
    Addr dba = 0;                    // DBALO/HI: the flat buffer (ignored with sg_pages)
    std::vector<Addr> sg_pages;      // ETR_SG: the data pages in buffer order, or empty
};

class EtrHw {
public:
    // nullopt when the config is unusable (see EtrHwConfig).
    static std::optional<EtrHw> create(EtrHwConfig config);

    uint32_t rsz() const { return static_cast<uint32_t>(config_.buffer_bytes / 4); }
    uint64_t buffer_bytes() const { return config_.buffer_bytes; }

    // The input byte rate from t on. False (ignored) when t is before the previous change.
    bool set_input(Picos t, double bytes_per_second);
    // CTL.TraceCaptEn 0 -> 1 at t. False (ignored) when t is before the previous change.
    bool enable(Picos t);
    // FFCR.StopOnFl + FlushMan at t; returns when STS.TMCReady rises. nullopt when capture
    // is not running or t is before the previous change.
    std::optional<Picos> flush_and_stop(Picos t, Picos flush_latency);

    void set_memerr(bool on) { memerr_ = on; }
    bool memerr() const { return memerr_; }

    // Bytes written into memory since the enable, unwrapped, in whole frames.
    uint64_t bytes_written(Picos t) const;
    // Input bytes lost because the FIFO was full.
    uint64_t overflow_bytes(Picos t) const;
    // Bytes waiting in the FIFO.
    uint64_t fifo_level(Picos t) const;

    uint64_t write_offset(Picos t) const { return bytes_written(t) % config_.buffer_bytes; }
    uint64_t read_offset(Picos t) const { return full(t) ? write_offset(t) : 0; }
    bool full(Picos t) const { return bytes_written(t) >= config_.buffer_bytes; }
    bool ready(Picos t) const { return !capturing_ || (stopped_ && t >= ready_at_); }
    // RWP / RRP as 64-bit addresses (RWPHI:RWP); the SG page address for ETR_SG.
    Addr rwp(Picos t) const { return offset_to_addr(write_offset(t)); }
    Addr rrp(Picos t) const { return offset_to_addr(read_offset(t)); }
    uint32_t sts(Picos t) const;

private:
    // 1e-12 byte; bytes * 1e12 overflows 64 bits within seconds of trace.
    __extension__ typedef unsigned __int128 Units;

    struct Segment {
        Picos start = 0;
        uint64_t rate = 0; // bytes/s == units/ps
        Units fifo = 0;
        Units written = 0;
        Units overflow = 0;
    };

    explicit EtrHw(EtrHwConfig config, uint64_t bandwidth);
    Segment state_at(Picos t) const;
    Segment advance(const Segment& s, Picos t) const;
    Addr offset_to_addr(uint64_t offset) const;
    bool accepts(Picos t) const { return t >= last_change_; }

    EtrHwConfig config_;
    uint64_t bandwidth_;      // bytes/s == units/ps
    uint64_t input_rate_ = 0; // the latest set_input, kept across captures
    Picos last_change_ = 0;
    bool capturing_ = false; // enabled at least once (TraceCaptEn, until the stop)
    bool stopped_ = false;
    Picos ready_at_ = 0;
    uint64_t final_bytes_ = 0; // bytes_written once TMCReady rose after the stop
    bool memerr_ = false;
    std::vector<Segment> segments_; // the current capture, by start time
};

} // namespace ringsim::models::coresight
