#include "models/coresight/etr_sink.h"
#include "models/common/sim_wait.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/coresight/etm_packets.h"
#include "models/coresight/etr_sg_table.h"
#include "models/coresight/formatter.h"

#include <algorithm>

namespace ringsim::models::coresight {

namespace {

EtrHw make_hw(const EtrSinkParams& p) {
    EtrHwConfig c;
    c.buffer_bytes = p.buffer_bytes;
    c.mem_bytes_per_second = p.mem_bandwidth;
    c.fifo_bytes = p.fifo_bytes;
    c.dba = p.sg ? (p.sg_table.empty() ? 0 : p.sg_table.front()) : p.flat_base;
    if (p.sg) c.sg_pages = p.sg_pages;
    auto hw = EtrHw::create(std::move(c));
    if (!hw) throw ModelError("etr: unusable sink configuration");
    return std::move(*hw);
}

} // namespace

EtrSink::EtrSink(sc_core::sc_module_name name, const EtrSinkParams& params, EnginePort& port,
                 TraceObserver& observer)
    : sc_module(name), m_p(params), m_port(port), m_observer(observer), m_hw(make_hw(params)) {
    require_param(params.burst > 0, "EtrSinkParams.burst");
    SC_THREAD(sink_thread);
}

void EtrSink::attach(EtmSource* source) {
    m_sources.push_back(source);
    m_formatted.push_back(0);
}

void EtrSink::build_table() {
    if (!m_p.sg) return;
    const SgBuildResult r = sg_table_build(m_port, m_p.sg_pages, m_p.sg_table);
    if (r.error != SgBuildError::none)
        throw ModelError(std::string("etr: SG table: ") + to_string(r.error));
    if (m_p.sg_table_fault == SgTableFault::none) return;
    // A broken table, for the MemErr path (E4, D10). Entry i of the table is at table page
    // i / 1024, slot i % 1024.
    auto put = [this](uint64_t i, uint32_t entry) {
        m_port.store_bytes(m_p.sg_table[i / kSgEntriesPerPage] + (i % kSgEntriesPerPage) * 4,
                           reinterpret_cast<const uint8_t*>(&entry), 4, false, Barrier::none);
    };
    switch (m_p.sg_table_fault) {
    case SgTableFault::invalid_entry:
        put(0, 0);
        break; // type 0
    case SgTableFault::missing_link:
        // The first table page's link becomes a data entry (the loader requires two
        // table pages for this one).
        put(kSgEntriesPerPage - 1, sg_entry(m_p.sg_pages.front(), SgEntryType::normal));
        break;
    case SgTableFault::last_too_early:
        // LAST on the first entry of a buffer of more than one page (the loader checks).
        put(0, sg_entry(m_p.sg_pages.front(), SgEntryType::last));
        break;
    case SgTableFault::none:
        break;
    }
}

Addr EtrSink::address_of(uint64_t off) const {
    if (!m_p.sg) return m_p.flat_base + off;
    return m_p.sg_pages[off / kSgPageSize] + off % kSgPageSize;
}

uint64_t EtrSink::contiguous_from(uint64_t off) const {
    return m_p.sg ? kSgPageSize - off % kSgPageSize : m_p.buffer_bytes - off;
}

void EtrSink::enable_perf(Picos t, EnginePort& cpu) {
    // E3: the same session's later users only take a reference.
    if (m_refcnt++) return;
    // CS_UNLOCK's mb() before the register writes that start the ETR: what the CPU stored
    // in the buffer before (the barrier packet of the last harvest) is there before the
    // device writes again, not after.
    m_port.engine().handoff(cpu.agent(), m_port.agent());
    // __tmc_etr_enable_hw: RSZ, MODE = circular, DBA, FFCR, TraceCaptEn. The ETR restarts at
    // its base with Full clear; the frames of the previous capture are gone.
    // In SG mode the ETR walks its table before it can write (one 4 KiB load per table
    // page); trace arriving meanwhile waits in the FIFO. A table the kernel could not have
    // built is a MemErr for the whole capture (E4, D10).
    Picos walk = 0;
    bool walk_failed = false;
    if (m_p.sg) {
        const SgWalkResult w =
            sg_table_walk(m_port, m_p.sg_table.front(), m_p.buffer_bytes / kSgPageSize);
        walk = m_p.sg_walk * w.table_pages_walked;
        m_walk_time += walk;
        if (!w.ok()) {
            walk_failed = true;
            ++m_walk_failures;
        }
    }
    m_hw.enable(t, walk);
    if (walk_failed) m_hw.set_memerr(true);
    m_log.clear();
    m_forgotten = 0;
    m_written_frames = 0;
    m_enabled_at = t;
    m_capturing = true;
    ++m_captures;
    sim_notify(m_changed);
    changed(t);
}

void EtrSink::disable_perf(Picos t) {
    if (m_refcnt == 0) throw ModelError("etr: disable without enable (E8)");
    // tmc_etr_disable_hw when the last user goes. It harvested in update_buffer before this
    // (P2 order), so the sink is stopped already: a capture still running would be trace
    // nobody accounted for.
    if (m_refcnt == 1 && m_capturing)
        throw ModelError("etr: the last user disabled the sink without harvesting it (E8)");
    --m_refcnt;
    (void)t;
}

void EtrSink::source_changed(Picos t, EtmSource* source, bool stopped) {
    if (!m_capturing) {
        drop_uncaptured(t);
        return;
    }
    collect(t, stopped ? source : nullptr);
    sim_notify(m_changed);
    changed(t);
}

Picos EtrSink::burst_period(Picos t) const {
    uint64_t rate = 0; // bytes/s into the formatter
    for (const EtmSource* s : m_sources)
        if (s->running()) rate += s->rate_at(t);
    if (rate == 0) return 0;
    const TraceUnits ps = static_cast<TraceUnits>(m_p.burst) * kPicosPerSecond / rate;
    return std::max<Picos>(1, static_cast<Picos>(ps));
}

void EtrSink::sink_thread() {
    for (;;) {
        const Picos t = sim_now();
        const Picos period = burst_period(t);
        if (period == 0) {
            sim_wait(m_changed);
        } else {
            sim_wait(period, m_changed);
        }
        if (m_capturing) {
            collect(sim_now(), nullptr);
            changed(sim_now());
        } else {
            drop_uncaptured(sim_now());
        }
    }
}

void EtrSink::drop_uncaptured(Picos t) {
    // The sink is stopped (another CPU's harvest flushed it) while sources run: their ATB
    // output has nowhere to go.
    for (size_t i = 0; i < m_sources.size(); ++i) {
        EtmSource* s = m_sources[i];
        s->produce_until(t);
        uint64_t& done = m_formatted[i];
        if (s->stream().size() > done) {
            m_observer.on_trace_lost(s->trace_id(), done, s->stream().size() - done,
                                     TraceLoss::sink_stopped);
            done = s->stream().size();
        }
    }
}

void EtrSink::collect(Picos t, const EtmSource* flushing) {
    uint64_t frames = 0;
    for (size_t i = 0; i < m_sources.size(); ++i) {
        EtmSource* s = m_sources[i];
        s->produce_until(t);
        uint64_t& done = m_formatted[i];
        const uint64_t avail = s->stream().size() - done;
        const uint64_t n = s == flushing ? avail : avail / kFrameSourceBytes * kFrameSourceBytes;
        if (!n) continue;
        frames += m_log.append(s->trace_id(), done, n);
        done += n;
    }
    if (frames) {
        ++m_bursts;
        const uint64_t accepted = m_hw.arrive(t, frames * kFrameSize) / kFrameSize;
        if (accepted < frames) {
            // The newest frames found the FIFO full.
            m_runs.clear();
            m_log.drop_newest(frames - accepted, m_runs);
            for (const FrameRun& r : m_runs) {
                m_overflow_bytes += r.src_bytes;
                m_observer.on_trace_lost(r.trace_id, r.src_off, r.src_bytes,
                                         TraceLoss::fifo_overflow);
            }
        }
    }
    forget_overwritten(t);
}

void EtrSink::forget_overwritten(Picos t) {
    // Frames the write pointer has lapped are gone from the buffer (D3).
    const uint64_t written = m_hw.bytes_written(t) / kFrameSize;
    const uint64_t capacity = m_p.buffer_bytes / kFrameSize;
    if (written <= capacity) return;
    const uint64_t oldest = written - capacity;
    if (oldest > m_forgotten) {
        lose_frames(m_forgotten, oldest - m_forgotten, TraceLoss::sink_wrap);
        m_log.forget_before(oldest);
        m_forgotten = oldest;
    }
}

void EtrSink::lose_frames(uint64_t first, uint64_t n, TraceLoss why) {
    if (!n) return;
    m_runs.clear();
    m_log.runs_in(first, n, m_runs);
    for (const FrameRun& r : m_runs)
        m_observer.on_trace_lost(r.trace_id, r.src_off, r.src_bytes, why);
}

EtrSyncState EtrSink::flush_and_sync(EnginePort& driver) {
    const Picos t = sim_now();
    if (!m_capturing) {
        // Already stopped by an earlier harvest, with users still holding it (E3/E5): the
        // kernel would sync and copy the same capture again; ringsim commits nothing new
        // (docs/aux-path.md, "A race in the shared sink").
        drop_uncaptured(t);
        EtrSyncState s;
        s.size = m_p.buffer_bytes;
        m_written_frames = m_log.frames();
        m_forgotten = m_log.frames();
        return s;
    }
    collect(t, nullptr);
    // tmc_flush_and_stop: FFCR.StopOnFl, FlushMan; the FIFO drains; TMCReady.
    const auto ready = m_hw.flush_and_stop(t, m_p.flush_latency);
    if (!ready) throw ModelError("etr: the flush found the sink not capturing (E5)");
    m_capturing = false;
    m_written_frames = m_hw.bytes_written(*ready) / kFrameSize;
    forget_overwritten(*ready);

    EtrSyncState s;
    s.size = m_p.buffer_bytes;
    s.full = m_hw.full(*ready);
    s.rwp_off = m_hw.write_offset(*ready);
    s.rrp_off = m_hw.read_offset(*ready);
    for (Picos at : m_p.memerr_at)
        if (at >= m_enabled_at && at <= *ready) m_hw.set_memerr(true);
    s.memerr = m_hw.memerr();
    // The DMA writes of the surviving frames, while the FIFO drains.
    if (!s.memerr) write_frames(m_forgotten, m_written_frames - m_forgotten);
    changed(t);
    if (*ready > t) sim_wait(*ready - t);
    changed(*ready);
    // TMCReady seen, dma_sync_single_for_cpu, CS_LOCK's mb(): the CPU reads after the DMA.
    m_port.engine().handoff(m_port.agent(), driver.agent());
    return s;
}
uint64_t EtrSink::frame_at_offset(uint64_t off) const {
    const uint64_t capacity = m_p.buffer_bytes / kFrameSize;
    const uint64_t base = m_written_frames - std::min(m_written_frames, capacity);
    return base + (off / kFrameSize + capacity - base % capacity) % capacity;
}

void EtrSink::write_frames(uint64_t first, uint64_t n) {
    // One store per burst of contiguous memory: a flat buffer is contiguous up to its end,
    // an SG buffer up to the end of each 4 KiB page.
    const uint64_t burst_frames = std::max<uint64_t>(1, m_p.burst / kFrameSize);
    auto stream_of = [this](uint8_t id) -> const EtmStream& {
        for (const EtmSource* s : m_sources)
            if (s->trace_id() == id) return s->stream();
        throw ModelError("etr: a frame of an unknown trace ID");
    };
    while (n) {
        const uint64_t off = (first * kFrameSize) % m_p.buffer_bytes;
        const uint64_t k = std::min({n, burst_frames, contiguous_from(off) / kFrameSize});
        m_scratch.resize(k * kFrameSize);
        m_log.materialize(first, k, stream_of, m_scratch.data());
        m_port.store_bytes(address_of(off), m_scratch.data(), m_scratch.size(), false,
                           Barrier::none);
        ++m_dma_stores;
        first += k;
        n -= k;
    }
}

} // namespace ringsim::models::coresight

namespace ringsim::models {

// The sinks serve every buffer's events: their counts are the total's only, summed over sinks.
void declare_etr_sink_stats(StatRegistry& r) {
    using coresight::EtrSink;
    auto count = [&r](const char* path, const char* unit, const char* what,
                      uint64_t (EtrSink::*get)() const) {
        r.counter<EtrSink>(
            path, unit, what, [get](const EtrSink& k) { return (k.*get)(); }, StatScope::total);
    };
    count("aux.sink.captures", "captures", "times the sink was enabled at its base (E3)",
          &EtrSink::captures);
    count("aux.sink.bursts", "bursts", "input bursts the sink model processed", &EtrSink::bursts);
    count("aux.sink.dma_stores", "stores", "DMA stores the sink issued through its own agent",
          &EtrSink::dma_stores);
    count("aux.sink.overflow_bytes", "bytes", "trace bytes its FIFO dropped",
          &EtrSink::overflow_bytes);
    count("aux.sink.sg_walk_failures", "walks",
          "ETR_SG table walks at an enable that found a "
          "table the driver could not have built: STS.MemErr for that capture (E4, D10)",
          &EtrSink::sg_walk_failures);
    count("aux.sink.sg_walk_time", "ps", "time the sink spent walking its SG table at enables",
          &EtrSink::sg_walk_time);
}

} // namespace ringsim::models
