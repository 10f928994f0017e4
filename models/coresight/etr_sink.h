// A TMC-ETR-like sink in perf mode: the formatter and the DMA engine behind it, as one
// SystemC process with its own agent of the ordering engine. KERNEL-SEMANTICS E1-E5, E8.
//  - Input: the ETMs attached to it. The process wakes once per burst of `burst` bytes of
//    input (or when a source starts or stops), takes every source's new bytes, formats
//    them into 16-byte frames (etr_frame_log.h: one source per frame) and hands them to
//    the register model (etr_hw.h), which queues them in its FIFO, drains them at the
//    memory bandwidth and counts what overflows.
//  - Memory: a flat DMA buffer or scatter-gather pages with the real table (E2), never the
//    AUX pages (E1). Lazy writes: the ETR buffer is read by nobody but the driver, and only
//    after flush-and-stop and TMCReady (E5), so the bytes the hardware overwrote before
//    then can never be observed. The sink therefore writes, at the flush, exactly the
//    frames that survive in the buffer, through its own agent, one store per burst of
//    contiguous memory (never one per frame), all before TMCReady; what it overwrote is
//    reported lost (sink_wrap) as it falls out of the buffer. Memory after the harvest is
//    byte-identical to what a frame-by-frame writer would leave.
//  - refcnt: the perf-mode users (E3, E5, E8); a shared sink is harvested only by its last
//    user.
// Leaves out: CATU and RESRV buffers, SoC-600 save/restore (every enable restarts at the
// base with Full clear, E3), triggers, 32-byte memory width.
#pragma once

#include "models/coresight/etm_source.h"
#include "models/coresight/etr_frame_log.h"
#include "models/coresight/etr_hw.h"
#include "models/coresight/etr_sg_table.h"
#include "models/coresight/tmc_regs.h"
#include "models/coresight/trace_loss.h"
#include "models/memory/engine_port.h"

#include <functional>
#include <systemc>
#include <vector>

namespace ringsim::models::coresight {

struct EtrSinkParams {
    uint64_t buffer_bytes = 0;  // the ETR buffer E1 chose
    bool sg = false;            // ETR_SG (else FLAT)
    Addr flat_base = 0;         // FLAT: the DMA buffer
    std::vector<Addr> sg_pages; // ETR_SG: data pages in buffer order
    std::vector<Addr> sg_table; // ETR_SG: table pages
    double mem_bandwidth = 0;   // bytes/s
    uint64_t fifo_bytes = 0;
    Picos flush_latency = 0;
    uint64_t burst = 0;           // bytes per modelled burst
    std::vector<Picos> memerr_at; // a capture running at one of these ends with MemErr
    Picos sg_walk = 0;            // ETR_SG: walking one table page at an enable
    SgTableFault sg_table_fault = SgTableFault::none; // ETR_SG (etr_sg_table.h)
};

class EtrSink : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(EtrSink);
    EtrSink(sc_core::sc_module_name name, const EtrSinkParams& params, EnginePort& port,
            TraceObserver& observer);

    // The ETMs whose ATB path ends here (the funnel inputs).
    void attach(EtmSource* source);
    // Builds the SG table in memory (the driver's tmc_etr_sg_table_populate at alloc).
    void build_table();

    // tmc_enable_etr_sink_perf (E3) on the CPU whose agent is `cpu`: the first user enables
    // the hardware, the others only take a reference. A table walk that fails is a MemErr
    // for the capture.
    void enable_perf(Picos t, EnginePort& cpu);
    // tmc_disable_etr_sink (E8): the last user stops the hardware.
    void disable_perf(Picos t);
    unsigned refcnt() const { return m_refcnt; }

    // A source started or stopped at t: take its bytes so far (at a stop, its partial frame
    // too: the ETM flushes when disabled).
    void source_changed(Picos t, EtmSource* source, bool stopped);

    // tmc_flush_and_stop + tmc_sync_etr_buf (E4, E5), on the driver's thread: writes the
    // surviving frames, waits for TMCReady, hands the memory to `driver` (the TMCReady poll,
    // dma_sync_single_for_cpu and the mb() in CS_LOCK), and returns what the registers say.
    EtrSyncState flush_and_sync(EnginePort& driver);
    // After the sync: which frame is at ETR offset `off` (within the frames written).
    uint64_t frame_at_offset(uint64_t off) const;
    uint64_t frames_written() const { return m_written_frames; }
    const EtrFrameLog& log() const { return m_log; }
    // ETR buffer offset -> physical address, and the bytes contiguous in memory from there.
    Addr address_of(uint64_t off) const;
    uint64_t contiguous_from(uint64_t off) const;
    // The source byte ranges held by frames [first, first + n).
    void runs_in(uint64_t first, uint64_t n, std::vector<FrameRun>& out) const {
        m_log.runs_in(first, n, out);
    }
    // Reports frames [first, first + n) lost for `why` (the driver's harvest decisions).
    void lose_frames(uint64_t first, uint64_t n, TraceLoss why);

    const EtrHw& hw() const { return m_hw; }
    // Called with the time whenever the registers may have changed (a burst, an enable, a
    // flush, TMCReady): a waveform's listener reads hw() then. None by default.
    void set_listener(std::function<void(Picos)> f) { m_listener = std::move(f); }
    uint64_t buffer_bytes() const { return m_p.buffer_bytes; }
    uint64_t dma_stores() const { return m_dma_stores; }
    uint64_t bursts() const { return m_bursts; }
    uint64_t overflow_bytes() const { return m_overflow_bytes; }
    uint64_t captures() const { return m_captures; }
    uint64_t sg_walk_failures() const { return m_walk_failures; }
    Picos sg_walk_time() const { return m_walk_time; }

private:
    void sink_thread();
    void collect(Picos t, const EtmSource* flushing);
    void forget_overwritten(Picos t);
    void drop_uncaptured(Picos t);
    Picos burst_period(Picos t) const;
    void write_frames(uint64_t first, uint64_t n);

    EtrSinkParams m_p;
    EnginePort& m_port;
    TraceObserver& m_observer;
    EtrHw m_hw;
    EtrFrameLog m_log;
    std::vector<EtmSource*> m_sources; // by attach order (trace ID order)
    std::vector<uint64_t> m_formatted; // by source, as m_sources: its bytes already framed
    unsigned m_refcnt = 0;
    bool m_capturing = false;
    Picos m_enabled_at = 0;
    uint64_t m_forgotten = 0;      // frames before this one are overwritten and reported
    uint64_t m_written_frames = 0; // after the sync
    sc_core::sc_event m_changed;
    std::vector<uint8_t> m_scratch;
    std::vector<FrameRun> m_runs;
    uint64_t m_dma_stores = 0, m_bursts = 0, m_overflow_bytes = 0, m_captures = 0;
    uint64_t m_walk_failures = 0;
    Picos m_walk_time = 0;
    std::function<void(Picos)> m_listener;
    void changed(Picos t) {
        if (m_listener) m_listener(t);
    }
};

} // namespace ringsim::models::coresight
