#include "models/kernel/perf_aux.h"

#include "models/common/stat_registry.h"
#include "models/kernel/perf_abi.h"

namespace ringsim::models {

PerfAux::PerfAux(const PerfAuxParams& params) : m_p(params) {
    set_overwrite(m_p.overwrite);
}

void PerfAux::set_overwrite(bool overwrite) {
    m_p.overwrite = overwrite;
    // rb_alloc_aux: no watermark in overwrite mode; else attr.aux_watermark or half (M3).
    m_watermark = m_p.overwrite ? 0 : (m_p.aux_watermark ? m_p.aux_watermark : m_p.aux_size / 2);
}

bool PerfAux::output_begin(Handle& h, MemoryPort& mem, PerfBuffer& rb) {
    if (m_nest) throw ModelError(m_p.name + ": nested perf_aux_output_begin (A1)");
    h = Handle{};
    h.head = m_aux_head;
    if (!m_p.overwrite) {
        const LoadTicket t =
            mem.issue_load(m_p.user_page + perf::kOffAuxTail, 8, false, Barrier::A);
        // (A) for AUX: the driver may not start writing trace before this aux_tail load
        // decides there is room (a control dependency). Pairs with (D) in the tool's
        // aux_tail store (auxtrace_mmap__write_tail).
        if (m_p.a == BarrierKind::ctrl) mem.ctrl_dep(t, Barrier::A);
        const uint64_t aux_tail = mem.value(t);
        if (m_aux_head - aux_tail < m_p.aux_size)
            h.size = perf::circ_space(m_aux_head, aux_tail, m_p.aux_size);
        if (h.size == 0) {
            // A2: no room: disable the event and wake the tool, do not start.
            m_disable = true;
            rb.wakeup();
            return false;
        }
    }
    m_nest = true;
    h.active = true;
    return true;
}

void PerfAux::output_flag(Handle& h, uint64_t flag) {
    if (flag & PERF_AUX_FLAG_OVERWRITE)
        throw ModelError(m_p.name + ": a driver may not set PERF_AUX_FLAG_OVERWRITE (A5)");
    h.flags |= flag;
}

bool PerfAux::output_end(Handle& h, MemoryPort& mem, uint64_t size, PerfBuffer& rb,
                         const perf::RecordContext& writer) {
    bool wakeup = h.flags & PERF_AUX_FLAG_TRUNCATED;
    uint64_t rec_offset;
    if (m_p.overwrite) {
        // The driver moved the head itself; the record names the new head (A5).
        h.flags |= PERF_AUX_FLAG_OVERWRITE;
        rec_offset = m_aux_head = h.head;
    } else {
        h.flags &= ~uint64_t(PERF_AUX_FLAG_OVERWRITE);
        rec_offset = m_aux_head;
        m_aux_head += size;
    }
    // An OVERWRITE flag alone is not worth a record.
    m_last_offset = rec_offset;
    m_last_written = false;
    m_last_due = size || (h.flags & ~uint64_t(PERF_AUX_FLAG_OVERWRITE));
    if (m_last_due) {
        perf::encode_aux(m_scratch, writer, rec_offset, size, h.flags);
        if (rb.output_whole(mem, writer, m_scratch)) {
            ++m_records;
            m_last_written = true;
        } else {
            ++m_records_lost; // the AUX bytes stay, without their record (A5, D11)
        }
    }
    // WRITE_ONCE(aux_head): no barrier here; ordering the trace bytes before it is the
    // driver's (B).
    if (m_p.head_release)
        mem.store_release(m_p.user_page + perf::kOffAuxHead, m_aux_head, 8, Barrier::B);
    else
        mem.store(m_p.user_page + perf::kOffAuxHead, m_aux_head, 8);
    // rb_need_aux_wakeup.
    if (!m_p.overwrite && m_aux_head - m_aux_wakeup >= m_watermark) {
        m_aux_wakeup = m_aux_head - m_aux_head % m_watermark; // rounddown
        wakeup = true;
    }
    if (wakeup) {
        if (h.flags & PERF_AUX_FLAG_TRUNCATED) m_disable = true; // A6
        rb.wakeup();
    }
    m_nest = false;
    h.active = false;
    return wakeup;
}

} // namespace ringsim::models

namespace ringsim::models {

// Each AUX area's records: in its buffer's aux object and summed in the total.
void declare_perf_aux_stats(StatRegistry& r) {
    r.counter<PerfAux>("aux.records", "records",
                       "PERF_RECORD_AUX records written into the "
                       "data buffers (A3)",
                       [](const PerfAux& a) { return a.records_emitted(); });
    r.counter<PerfAux>("aux.records_lost", "records",
                       "PERF_RECORD_AUX records dropped because "
                       "the data buffer was full; their AUX bytes stay (A5, D11)",
                       [](const PerfAux& a) { return a.records_lost(); });
}

} // namespace ringsim::models
