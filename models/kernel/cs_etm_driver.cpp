#include "models/kernel/cs_etm_driver.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/coresight/formatter.h"
#include "models/kernel/etr_update.h"
#include "models/kernel/perf_abi.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models {

using coresight::AuxCommit;
using coresight::EtrSink;
using coresight::TraceLoss;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {
constexpr uint64_t kFrame = coresight::kFrameSize;
} // namespace

CsEtmDriver::CsEtmDriver(const CsEtmDriverParams& params, coresight::TraceObserver& observer)
    : m_p(params), m_observer(observer) {
    require_param(m_p.copy_bandwidth > 0, "CsEtmDriverParams.copy_bandwidth");
}

bool CsEtmDriver::start(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h, EtrSink& sink,
                        const perf::RecordContext& ctx, bool& hw_id_done,
                        coresight::UntracedCause why_off) {
    ++m_n.starts;
    // perf_aux_output_begin: (A) for AUX, and the room the harvest may fill (A2).
    if (!out.aux->output_begin(h, *c.port, *out.rb)) {
        ++m_n.begin_failures;
        return false;
    }
    // coresight_enable_path: the sink first (E3), then the source.
    const Picos t = sim_now();
    sink.enable_perf(t, *c.port);
    c.source->start(t, why_off);
    sink.source_changed(t, c.source, false);
    if (!hw_id_done) {
        // perf_report_aux_output_id: the trace ID the decoder maps to this CPU.
        perf::encode_aux_output_hw_id(m_buf, ctx, c.source->trace_id());
        out.rb->output_whole(*c.port, ctx, m_buf);
        hw_id_done = true;
    }
    return true;
}

void CsEtmDriver::stop(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h, EtrSink& sink,
                       const perf::RecordContext& ctx) {
    ++m_n.stops;
    // The source goes off first (P2): the ETM flushes its last bytes into the sink.
    c.source->stop(sim_now());
    sink.source_changed(sim_now(), c.source, true);
    if (!h.active) return;
    AuxCommit commit;
    commit.aux = out.idx;
    commit.aux_off = h.head;
    const uint64_t size = update_buffer(c, out, h, sink, commit);
    out.aux->output_end(h, *c.port, size, *out.rb, ctx);
    commit.flags = h.flags;
    commit.record_offset = out.aux->last_record_offset();
    commit.record_size = size;
    commit.record_written = out.aux->last_record_written();
    commit.at = sim_now();
    // Every commit that wrote bytes or a record: the checker matches records to commits.
    if (commit.size || out.aux->last_record_due()) m_observer.on_aux_commit(std::move(commit));
    // coresight_disable_path: the sink's reference goes (E8).
    sink.disable_perf(sim_now());
}

uint64_t CsEtmDriver::update_buffer(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h,
                                    EtrSink& sink, AuxCommit& commit) {
    // E5: only the last user of a shared sink harvests; the others commit nothing (D5).
    if (sink.refcnt() != 1) {
        ++m_n.harvest_skipped_shared;
        return 0;
    }
    ++m_n.harvests;
    const EtrSyncState hw = sink.flush_and_sync(*c.port);
    const uint64_t written = sink.frames_written();
    if (hw.full) ++m_n.wrapped_captures;
    if (hw.memerr) {
        // E4: STS.MemErr: WARN, len = 0, the whole capture is discarded, no flag (D10).
        ++m_n.memerr_captures;
        const uint64_t cap = hw.size / kFrame;
        const uint64_t first = written - std::min(written, cap);
        sink.lose_frames(first, written - first, TraceLoss::memerr);
        return 0;
    }
    const EtrHarvest hv =
        etr_update_buffer(hw, m_p.snapshot, h.size, h.head, out.aux_size, m_p.memwidth_mask);
    // The frames the hardware kept, and the newest hv.size bytes of them the driver keeps.
    const uint64_t len = hw.full ? hw.size : hw.rwp_off - hw.rrp_off;
    const uint64_t first_data = written - len / kFrame;
    const uint64_t first_kept = written - hv.size / kFrame;
    // D2: no room for all of it: the oldest bytes are dropped.
    sink.lose_frames(first_data, first_kept - first_data, TraceLoss::aux_shortage);
    if (hv.lost && hv.size) {
        // coresight_insert_barrier_packet over the first kept frame, in the ETR buffer: the
        // decoder must resynchronise there. It replaces real trace.
        const TraceLoss why = hv.size < len ? TraceLoss::aux_shortage : TraceLoss::sink_wrap;
        sink.lose_frames(first_kept, 1, why);
        uint8_t barrier[coresight::kBarrierSize];
        coresight::insert_barrier_packet(barrier);
        c.port->store_bytes(sink.address_of(hv.offset), barrier, sizeof barrier, false,
                            Barrier::none);
        commit.barrier = true;
        ++m_n.barrier_packets;
    }
    if (hv.truncated) {
        out.aux->output_flag(h, PERF_AUX_FLAG_TRUNCATED);
        ++m_n.truncated;
    }
    // tmc_etr_sync_perf_buffer: the kept bytes into the AUX pages, wrapping at both ends.
    commit.first_frame = first_kept;
    commit.size = hv.size;
    sink.runs_in(first_kept + (commit.barrier ? 1 : 0), hv.size / kFrame - (commit.barrier ? 1 : 0),
                 commit.runs);
    uint64_t pos = h.head;
    commit.bytes.reserve(hv.size);
    for (const EtrCopy& cp : hv.copies) {
        copy(c, out, sink, cp.etr_off, pos, cp.len, commit);
        pos += cp.len;
    }
    m_n.harvested_bytes += hv.size;
    if (m_p.snapshot) h.head = hv.new_head;
    // (B) for AUX: the trace bytes in the AUX pages before aux_head (the smp_wmb added to
    // tmc_update_etr_buffer in 2021, E7). Pairs with (C), the tool's smp_rmb after its
    // aux_head load. `release` builds it into the aux_head store instead.
    switch (m_p.b) {
    case BarrierKind::wmb:
        c.port->fence(Fence::wmb, Barrier::B);
        break;
    case BarrierKind::mb:
        c.port->fence(Fence::mb, Barrier::B);
        break;
    default:
        break;
    }
    return hv.size;
}

void CsEtmDriver::copy(const EtmCpu& c, const AuxOutput& out, EtrSink& sink, uint64_t etr_off,
                       uint64_t aux_pos, uint64_t len, AuxCommit& commit) {
    // The ETR side is contiguous within a page (SG) or up to its end (flat); the AUX side
    // up to its end. The caller already split at both buffers' ends.
    while (len) {
        // tmc_etr_sync_perf_buffer copies at most one AUX page at a time; the time each
        // memcpy takes passes before its stores, so the last bytes are stored just before
        // the driver's (B).
        const uint64_t page = 4096 - (aux_pos % out.aux_size) % 4096;
        const uint64_t n = std::min({len, sink.contiguous_from(etr_off), page});
        if (m_p.copy_bandwidth > 0)
            c.cpu->run_for(m_p.context, Picos(std::llround(double(n) / m_p.copy_bandwidth * 1e12)));
        m_page.resize(n);
        c.port->read(c.port->issue_load(sink.address_of(etr_off), n, false, Barrier::none),
                     m_page.data(), nullptr);
        const Addr dst = out.aux_base + aux_pos % out.aux_size;
        const uint64_t seq = c.port->store_bytes(dst, m_page.data(), n, false, Barrier::none);
        commit.stores.push_back({aux_pos, n, seq});
        commit.bytes.insert(commit.bytes.end(), m_page.begin(), m_page.end());
        ++m_n.copy_stores;
        etr_off += n;
        aux_pos += n;
        len -= n;
    }
}

} // namespace ringsim::models

namespace ringsim::models {

// One driver for the session: its counts are the total's only.
void declare_cs_etm_driver_stats(StatRegistry& r) {
    using N = CsEtmCounters;
    auto count = [&r](const char* path, const char* unit, const char* what, uint64_t N::*m) {
        r.counter<CsEtmDriver>(
            path, unit, what, [m](const CsEtmDriver& d) { return d.counters().*m; },
            StatScope::total);
    };
    count("aux.truncated", "records", "harvests flagged PERF_AUX_FLAG_TRUNCATED (D2, D3)",
          &N::truncated);
    count("aux.event.starts", "calls", "pmu::start calls (etm_event_start, P1)", &N::starts);
    count("aux.event.begin_failures", "calls",
          "starts that found no AUX room: no trace, event "
          "disabled (A2, D1)",
          &N::begin_failures);
    count("aux.event.stops", "calls", "pmu::stop calls (etm_event_stop, P2)", &N::stops);
    count("aux.driver.harvests", "harvests",
          "update_buffer calls that flushed and copied the "
          "sink (E5)",
          &N::harvests);
    count("aux.driver.harvests_skipped_shared", "calls",
          "update_buffer calls by a non-last "
          "user of the shared sink: nothing committed (E5, D5)",
          &N::harvest_skipped_shared);
    count("aux.driver.harvested_bytes", "bytes",
          "bytes copied into AUX buffers (frames, "
          "barriers and padding included)",
          &N::harvested_bytes);
    count("aux.driver.barrier_packets", "packets",
          "16-byte barrier packets written over a kept "
          "frame (E5)",
          &N::barrier_packets);
    count("aux.driver.memerr_captures", "captures", "harvests that found STS.MemErr (D10)",
          &N::memerr_captures);
    count("aux.driver.wrapped_captures", "captures", "harvests that found STS.Full (D3)",
          &N::wrapped_captures);
}

} // namespace ringsim::models
