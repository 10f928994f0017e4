#include "platform/series.h"
#include "models/common/sim_clock.h"
#include "models/common/sim_wait.h"

#include "models/kernel/perf_abi.h"

#include <algorithm>

namespace ringsim::platform {

using models::Picos;

SeriesSampler::SeriesSampler(sc_core::sc_module_name name, const Platform& platform, Picos interval,
                             std::ostream& out)
    : sc_module(name), m_p(platform), m_interval(interval), m_out(out),
      m_aux(platform.aux_enabled()), m_base(platform.buffers().size()) {
    m_out << "time_ps,buffer,records.produced,records.delivered,records.lost,bytes.unread";
    if (m_aux) m_out << ",aux.bytes.produced,aux.bytes.harvested,aux.bytes.lost";
    m_out << "\n";
    SC_THREAD(sampler_thread);
}

void SeriesSampler::sampler_thread() {
    for (;;) {
        models::sim_wait(m_interval);
        const Picos now = models::sim_now();
        if (m_pending) write_rows(m_pending_at, m_pending_books, m_pending_fill);
        m_pending = true;
        m_pending_at = now;
        m_pending_books = books(false);
        m_pending_fill.clear();
        for (unsigned i = 0; i < m_p.buffers().size(); ++i)
            m_pending_fill.push_back(fill_level(i));
        // Nothing else will ever happen (a run that stalled): do not keep it alive.
        if (!sc_core::sc_pending_activity()) {
            models::sim_sync(); // a thread ends with no lead (models/common/sim_wait.h)
            return;
        }
    }
}

void SeriesSampler::finish() {
    const Picos end = sc_core::sc_time_stamp().value();
    if (m_pending && m_pending_at < end) write_rows(m_pending_at, m_pending_books, m_pending_fill);
    m_pending = false;
    std::vector<uint64_t> fill;
    for (unsigned i = 0; i < m_p.buffers().size(); ++i)
        fill.push_back(fill_level(i));
    write_rows(end, books(true), fill);
}

std::vector<SeriesSampler::Books> SeriesSampler::books(bool final) const {
    std::vector<Books> v;
    const models::AuxChecker* aux = m_p.aux_checker();
    for (unsigned i = 0; i < m_p.buffers().size(); ++i) {
        const models::BufferStats& s = m_p.buffers()[i].stats;
        Books b;
        b.produced = s.records_produced;
        b.delivered = s.records_delivered;
        b.lost = s.records_lost;
        if (m_aux && aux != nullptr) {
            b.aux_harvested = aux->harvested_bytes(i);
            for (const models::coresight::EtmSource* src : m_p.aux_sources(i)) {
                b.aux_produced += src->stream().size();
                // Until the checker has closed its books, the losses reported so far.
                b.aux_lost +=
                    final ? aux->lost_bytes(src->trace_id()) : aux->reported_lost(src->trace_id());
            }
        }
        v.push_back(b);
    }
    return v;
}

uint64_t SeriesSampler::fill_level(unsigned idx) const {
    // The values the last performed stores left in memory: what a debugger would read.
    const models::PerfBuffer& rb = *m_p.buffers()[idx].rb;
    const uint64_t head = m_p.phys().read_u64(rb.params().user_page + models::perf::kOffDataHead);
    if (!rb.params().overwrite) {
        const uint64_t tail =
            m_p.phys().read_u64(rb.params().user_page + models::perf::kOffDataTail);
        return head - tail;
    }
    // No tail in an overwrite buffer: what the tool has not read yet, at most the buffer.
    const uint64_t prev = m_p.consumer().read_position(idx);
    const uint64_t unread = rb.params().backward ? prev - head : head - prev;
    return std::min(unread, rb.data_size());
}

void SeriesSampler::write_rows(Picos t, const std::vector<Books>& now,
                               const std::vector<uint64_t>& fill) {
    for (unsigned i = 0; i < now.size(); ++i) {
        const Books& a = m_base[i];
        const Books& b = now[i];
        m_out << t << ',' << m_p.buffers()[i].name << ',' << b.produced - a.produced << ','
              << b.delivered - a.delivered << ',' << b.lost - a.lost << ',' << fill[i];
        if (m_aux)
            m_out << ',' << b.aux_produced - a.aux_produced << ','
                  << b.aux_harvested - a.aux_harvested << ',' << int64_t(b.aux_lost - a.aux_lost);
        m_out << '\n';
    }
    m_base = now;
}

} // namespace ringsim::platform
