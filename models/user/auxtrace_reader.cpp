#include "models/user/auxtrace_reader.h"
#include "models/common/sim_wait.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/kernel/perf_abi.h"
#include "models/memory/mmu.h"
#include "models/user/mmap_access.h"

namespace ringsim::models {

AuxtraceReader::AuxtraceReader(const AuxtraceReaderParams& params, MemoryPort& mem, EnginePort& cpu,
                               AddressSpace& space, std::vector<AuxMmap> mmaps,
                               AuxObserver& observer)
    : m_p(params), m_mem(mem), m_cpu(cpu), m_mmaps(std::move(mmaps)), m_prev(m_mmaps.size(), 0),
      m_tail_seq(m_mmaps.size(), 0), m_observers{&observer}, m_space(space) {
    require_param(m_p.copy_bandwidth > 0, "AuxtraceReaderParams.copy_bandwidth");
    require_param(m_p.write_bandwidth > 0, "AuxtraceReaderParams.write_bandwidth");
}

// auxtrace_mmap__read_head: READ_ONCE(aux_head) then smp_rmb().
uint64_t AuxtraceReader::read_head(unsigned idx, CopyContext& ctx) {
    // (C) for AUX: the trace loads that follow perform after this aux_head load. Pairs
    // with (B), the driver's smp_wmb after its copy into the AUX pages.
    const HeadLoad h = load_head(m_mem, m_mmaps[idx].user_page + perf::kOffAuxHead, m_p.c);
    ctx.head_value = h.value;
    ctx.head_load_seq = h.ticket.seq;
    ctx.head_load_perform = h.ticket.perform;
    ctx.head_store_seq = h.store_seq;
    ctx.tail_store_seq = m_tail_seq[idx];
    return h.value;
}

// auxtrace_mmap__write_tail: smp_mb() then WRITE_ONCE(aux_tail).
void AuxtraceReader::write_tail(unsigned idx, uint64_t tail) {
    // (D) for AUX: every trace load above performs before the driver can see this tail and
    // reuse the space. Pairs with (A), perf_aux_output_begin's control dependency.
    m_tail_seq[idx] = store_tail(m_mem, m_mmaps[idx].user_page + perf::kOffAuxTail, tail, m_p.d);
}

bool AuxtraceReader::read(unsigned idx, bool snapshot) {
    const AuxMmap& m = m_mmaps[idx];
    CopyContext ctx;
    const uint64_t head = read_head(idx, ctx);
    const uint64_t old = m_prev[idx];
    if (head == old) return false;
    const perf::AuxtraceRead r = perf::auxtrace_read(
        old, head, m.aux_size, snapshot, m_p.snapshot_size ? m_p.snapshot_size : m.aux_size);
    if (head - old > m.aux_size) ++m_n.lapped_reads; // D7: older data is invisible
    ++m_n.reads;
    // The data in one or two chunks ending at head & mask.
    const auto [first, second] =
        issue_copy(m_mem, m.aux + r.off1, r.len1, m.aux, r.len2, m_p.copy_bandwidth);
    sim_wait(transfer_time(r.size, m_p.copy_bandwidth) +
             transfer_time(r.size, m_p.write_bandwidth));
    m_n.bytes_copied += r.size;
    m_prev[idx] = head;
    // Non-snapshot: the tail goes back before the bytes are handed on (perf writes them to
    // perf.data before, but with (D) off the loads may still be in flight).
    if (!snapshot) write_tail(idx, head);
    std::vector<CopySource> sources;
    read_copy(m_mem, first, second, m_buf, sources);
    ctx.tail_store_seq = m_tail_seq[idx];
    for (AuxObserver* o : m_observers)
        o->on_aux_copied(idx, r.offset, m_buf.data(), r.size, sources, ctx);
    // auxtrace_record__read_finish: PERF_EVENT_IOC_ENABLE (A9).
    if (!snapshot && m.event) {
        m.event->ioc_enable();
        ++m_n.enables;
    }
    return true;
}

void AuxtraceReader::on_start() {
    // auxtrace_mmap__mmap (C7): aux_offset and aux_size go into the control page (its first
    // write is the mkwrite fault, M1, M2), then the AUX area is mapped at that offset, which
    // perf_mmap checks against them (M3). Then evlist__enable: the events start.
    for (unsigned i = 0; i < m_mmaps.size(); ++i) {
        AuxMmap& m = m_mmaps[i];
        m_mem.store(m.user_page + perf::kOffAuxOffset, m.aux_offset, 8);
        m_mem.store(m.user_page + perf::kOffAuxSize, m.aux_size, 8);
        // Without PROT_WRITE in snapshot mode (C7).
        m.aux = perf::mmap_aux(m_cpu, m_space, m.area, m.aux_offset, !m_p.snapshot,
                               m_space.params().page_size);
    }
    for (const AuxMmap& m : m_mmaps)
        if (m.event) m.event->ioc_enable();
}

bool AuxtraceReader::after_data_read(unsigned idx) {
    if (m_p.snapshot) return false; // C5: snapshot sessions read AUX only at snapshots
    return read(idx, false);
}

Picos AuxtraceReader::next_due() const {
    return m_next_snapshot < m_p.snapshot_at.size() ? m_p.snapshot_at[m_next_snapshot] : 0;
}

void AuxtraceReader::run_due() {
    while (m_next_snapshot < m_p.snapshot_at.size() &&
           m_p.snapshot_at[m_next_snapshot] <= sim_now()) {
        ++m_next_snapshot;
        snapshot();
    }
}

void AuxtraceReader::snapshot() {
    // cs_etm_snapshot_start: disable the cs_etm event on every CPU (each stop commits its
    // AUX data), read every AUX area, cs_etm_snapshot_finish: enable again (C8).
    ++m_n.snapshots;
    for (const AuxMmap& m : m_mmaps)
        if (m.event) m.event->ioc_disable_sync(m_cpu);
    for (unsigned i = 0; i < m_mmaps.size(); ++i)
        read(i, true);
    for (const AuxMmap& m : m_mmaps)
        if (m.event) m.event->ioc_enable();
}

void AuxtraceReader::on_exit() {
    for (const AuxMmap& m : m_mmaps)
        if (m.event) m.event->end(m_cpu);
    if (m_p.snapshot && m_p.snapshot_on_exit) {
        // -Se: the last snapshot, of what the final stops committed.
        ++m_n.snapshots;
        for (unsigned i = 0; i < m_mmaps.size(); ++i)
            read(i, true);
    }
}

} // namespace ringsim::models

namespace ringsim::models {

// perf's one AUX reader covers every buffer: its counts are the total's only.
void declare_auxtrace_reader_stats(StatRegistry& r) {
    using N = AuxtraceReaderCounters;
    auto count = [&r](const char* path, const char* unit, const char* what, uint64_t N::*m) {
        r.counter<AuxtraceReader>(
            path, unit, what, [m](const AuxtraceReader& a) { return a.counters().*m; },
            StatScope::total);
    };
    count("aux.consumer.reads", "reads", "AUX reads that found new data (C6, C8)", &N::reads);
    count("aux.consumer.bytes_copied", "bytes", "bytes the tool copied out of AUX buffers",
          &N::bytes_copied);
    count("aux.consumer.snapshots", "snapshots", "snapshots taken (C8)", &N::snapshots);
    count("aux.consumer.lapped_reads", "reads",
          "reads where aux_head had moved more than the "
          "buffer: older data invisible (D7)",
          &N::lapped_reads);
}

} // namespace ringsim::models
