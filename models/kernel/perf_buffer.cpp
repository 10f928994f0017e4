#include "models/kernel/perf_buffer.h"

#include "models/kernel/perf_abi.h"

#include <algorithm>

namespace ringsim::models {

using perf::circ_space;

PerfBuffer::PerfBuffer(const PerfBufferParams& params, BufferStats& stats)
    : m_params(params), m_stats(stats) {
    // ring_buffer_init: the watermark is attr.wakeup_watermark capped at the buffer size
    // when attr.watermark is set, else half the buffer (R6).
    m_watermark = std::min(data_size(), m_params.wakeup_watermark);
    if (m_watermark == 0) m_watermark = data_size() / 2;
}

void PerfBuffer::init_userpage(MemoryPort& mem) {
    const Addr up = m_params.user_page;
    mem.store(up + perf::kOffVersion, 0, 4);
    mem.store(up + perf::kOffSize, perf::kUserPageSize, 4);
    mem.store(up + perf::kOffDataOffset, m_params.page_size, 8);
    mem.store(up + perf::kOffDataSize, data_size(), 8);
}

// ring_buffer_has_space (R1): forward buffers need CIRC_SPACE(head, tail) >= size,
// backward buffers CIRC_SPACE(tail, head) >= size; one byte always stays free.
static bool ring_buffer_has_space(uint64_t head, uint64_t tail, uint64_t data_size,
                                  uint64_t size, bool backward) {
    if (!backward) return circ_space(head, tail, data_size) >= size;
    return circ_space(tail, head, data_size) >= size;
}

bool PerfBuffer::output_begin(Handle& h, MemoryPort& mem, const perf::RecordContext& writer,
                              uint64_t size) {
    ++m_stats.records_produced;
    m_stats.bytes_produced += size;

    if (m_paused) {
        // R9: a paused rb counts the loss and writes nothing (no get_handle either).
        ++m_lost;
        ++m_stats.records_lost;
        return false;
    }

    const uint64_t have_lost = m_lost;
    if (have_lost) size += perf::lost_size(writer); // R5: LOST goes first, same reservation

    // perf_output_get_handle.
    ++m_nest;
    if (m_nest > 1) ++m_stats.records_nested;
    h.wakeup = m_wakeup;

    const bool backward = m_params.backward;
    const uint64_t offset = m_head;
    if (!m_params.overwrite) {
        const uint64_t tail = mem.load(m_params.user_page + perf::kOffDataTail, 8);
        // (A) control dependency: the record stores below may not perform before this
        // tail load, because the branch to `fail` needs its value. Pairs with (D) in the
        // consumer's data_tail store.
        if (!ring_buffer_has_space(offset, mem.ctrl_dep(tail, Barrier::A), data_size(), size,
                                   backward)) {
            ++m_lost;
            ++m_stats.records_lost;
            output_end(h, mem); // the fail path publishes (an unchanged) head too
            return false;
        }
    }
    // local_try_cmpxchg(&rb->head, &offset, head) cannot fail here: writers of one
    // buffer interleave only at simulated-time boundaries, never inside this function.
    m_head = backward ? offset - size : offset + size;
    const uint64_t start = backward ? m_head : offset;
    const uint64_t stamp = backward ? uint64_t(0) - m_head : m_head;
    if (stamp - m_wakeup > m_watermark) m_wakeup += m_watermark; // R6: one step at a time

    h.pos = start;
    h.size = size;
    if (have_lost) {
        m_lost = 0; // local_xchg(&rb->lost, 0)
        perf::encode_lost(m_scratch, writer, have_lost);
        ++m_stats.lost_records_written;
        output_record(h, mem, m_scratch);
    }
    return true;
}

void PerfBuffer::output_copy(Handle& h, MemoryPort& mem, const uint8_t* src, uint64_t n) {
    const uint64_t mask = data_size() - 1;
    while (n) {
        const uint64_t off = h.pos & mask;
        const uint64_t chunk = std::min(n, data_size() - off); // split at the buffer end
        mem.store_bytes(m_params.data + off, src, chunk);
        src += chunk;
        n -= chunk;
        h.pos += chunk;
        h.size -= chunk;
    }
}

void PerfBuffer::output_record(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes) {
    if (bytes.size() > h.size) throw ModelError(m_params.name + ": record larger than its room");
    const uint64_t pos = h.pos;
    output_copy(h, mem, bytes.data(), bytes.size());
    if (m_observer) {
        uint64_t lost = 0;
        if (bytes.size() >= perf::kLostRecordSize &&
            *reinterpret_cast<const uint32_t*>(bytes.data()) == PERF_RECORD_LOST)
            std::copy_n(bytes.data() + 16, 8, reinterpret_cast<uint8_t*>(&lost));
        m_observer->on_record_stored(pos, bytes, lost);
    }
}

void PerfBuffer::output_end(Handle& h, MemoryPort& mem) {
    // perf_output_put_handle (R3): only the outermost writer publishes data_head.
    if (m_nest > 1) {
        --m_nest;
        return;
    }
    uint64_t head;
    do {
        head = m_head;
        // (B) smp_wmb: every record store above (ours and nested writers') performs
        // before data_head. Pairs with (C) in the consumer's data_head load.
        mem.fence(Fence::wmb, Barrier::B);
        mem.store(m_params.user_page + perf::kOffDataHead, head, 8);
        m_nest = 0;
        // An NMI that reserved after our read of rb->head: publish again for it.
        if (head != m_head) m_nest = 1;
    } while (head != m_head);
    if (h.wakeup != m_wakeup) {
        ++m_stats.wakeups;
        if (m_wakeup_sink) m_wakeup_sink->perf_output_wakeup();
    }
}

void PerfBuffer::count_sample_event() {
    // R7: only when attr.watermark is not set.
    if (m_params.wakeup_watermark || !m_params.wakeup_events) return;
    if (++m_events >= m_params.wakeup_events) {
        m_events -= m_params.wakeup_events;
        ++m_wakeup;
    }
}

void PerfBuffer::set_paused(bool paused) {
    if (paused && !m_paused) ++m_stats.paused_intervals;
    m_paused = paused;
}

} // namespace ringsim::models
