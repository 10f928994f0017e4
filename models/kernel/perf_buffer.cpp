#include "models/kernel/perf_buffer.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/kernel/perf_abi.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace ringsim::models {

using perf::circ_space;

PerfBuffer::PerfBuffer(const PerfBufferParams& params, BufferStats& stats)
    : m_params(params), m_stats(stats) {
    require_param(params.page_size > 0, "PerfBufferParams.page_size");
    require_param(params.nr_pages > 0 && !(params.nr_pages & (params.nr_pages - 1)),
                  "PerfBufferParams.nr_pages (a power of two)");
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
bool PerfBuffer::has_space(uint64_t offset, uint64_t tail, uint64_t size) const {
    if (!m_params.backward) return circ_space(offset, tail, data_size()) >= size;
    return circ_space(tail, offset, data_size()) >= size;
}

bool PerfBuffer::output_begin(Handle& h, MemoryPort& mem, const perf::RecordContext& writer,
                              uint64_t size) {
    ++m_stats.records_produced;
    m_stats.bytes_produced += size;

    if (m_paused) {
        // R9: a paused rb counts the loss and writes nothing (no get_handle either).
        lose(writer.id);
        return false;
    }

    // An interrupt is taken between retired instructions: the writer it interrupts has had
    // its room check resolved by then, its speculative stores and reservation committed or
    // squashed. A nested writer never sees a speculative rb->head (MEMORY-MODEL.md, (A)).
    if (m_unresolved) resolve_room_check(*m_unresolved, mem);

    const uint64_t have_lost = m_lost;
    if (have_lost) size += perf::lost_size(writer); // R5: LOST goes first, same reservation

    // perf_output_get_handle.
    ++m_nest;
    if (m_nest > 1) ++m_stats.records_nested;
    h.reset();
    h.wakeup = m_wakeup;
    h.event = writer.id;

    const bool backward = m_params.backward;
    uint64_t offset;
    for (;;) {
        offset = m_head;
        if (!m_params.overwrite) {
            h.tail = mem.issue_load(m_params.user_page + perf::kOffDataTail, 8, false, Barrier::A);
            // (A) control dependency: the branch to `fail` needs the data_tail value, so no
            // record store below performs before this load. Pairs with (D) in the
            // consumer's data_tail store. Switched off, the producer goes ahead while the
            // load is still in flight and checks the room when the value arrives
            // (resolve_room_check).
            const bool known = m_params.a == BarrierKind::ctrl || h.tail.perform <= sim_now();
            if (known) {
                if (m_params.a == BarrierKind::ctrl) mem.ctrl_dep(h.tail, Barrier::A);
                // Waiting for a late load lets a nested writer run: rb->head may move.
                const uint64_t tail = mem.value(h.tail);
                if (m_head != offset) continue; // local_try_cmpxchg failed: retry
                if (!has_space(offset, tail, size)) {
                    lose(writer.id);
                    output_end(h, mem); // the fail path publishes (an unchanged) head too
                    return false;
                }
            } else {
                h.check_pending = true;
                m_unresolved = &h;
            }
        }
        break;
    }
    // The caller's record is in flight until it is stored (or dropped): a run interrupted
    // meanwhile counts it so, not as produced and never accounted for.
    h.in_flight = true;
    ++m_stats.records_in_flight;
    // local_try_cmpxchg(&rb->head, &offset, head) succeeds: nothing ran since `offset` was
    // read (a writer that waited above re-read it).
    m_head = backward ? offset - size : offset + size;
    const uint64_t start = backward ? m_head : offset;
    const uint64_t stamp = backward ? uint64_t(0) - m_head : m_head;
    if (stamp - m_wakeup > m_watermark) m_wakeup += m_watermark; // R6: one step at a time

    h.pos = start;
    h.size = size;
    h.offset = offset;
    h.reserved = size;
    if (have_lost) {
        // local_xchg(&rb->lost, 0): the count now, which a nested writer that ran while we
        // waited may have changed since `have_lost` sized the reservation.
        const uint64_t taken = std::exchange(m_lost, 0);
        h.lost_taken = taken;
        perf::encode_lost(m_scratch, writer, taken);
        ++m_stats.lost_records_written;
        // With the room check pending, every store of the reservation goes out together
        // with the caller's record, so all of them are speculative alike.
        if (h.check_pending)
            h.lost_record = m_scratch;
        else
            store_record(h, mem, m_scratch);
    }
    return true;
}

std::pair<uint64_t, uint64_t> PerfBuffer::output_copy(Handle& h, MemoryPort& mem,
                                                      const uint8_t* src, uint64_t n) {
    // memcpy's stores reach memory a cache line at a time, each line performing on its own
    // (MEMORY-MODEL.md "Copies and records in pieces"); a copy also splits at the buffer end.
    const uint64_t mask = data_size() - 1;
    uint64_t first = 0, last = 0;
    while (n) {
        const uint64_t off = h.pos & mask;
        const uint64_t chunk =
            std::min({n, data_size() - off, kCacheLine - (m_params.data + off) % kCacheLine});
        last = mem.store_bytes(m_params.data + off, src, chunk, false, Barrier::none);
        if (!first) first = last;
        src += chunk;
        n -= chunk;
        h.pos += chunk;
        h.size -= chunk;
    }
    return {first, last};
}

void PerfBuffer::output_header(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes) {
    // (A) off: if the data_tail value has arrived meanwhile, the branch is decided before
    // any store issues.
    if (h.check_pending && h.tail.perform <= sim_now()) resolve_room_check(h, mem);
    if (h.dropped || h.header_stored) return;
    if (!h.lost_record.empty()) {
        store_record(h, mem, h.lost_record);
        h.lost_record.clear();
    }
    h.record_pos = h.pos;
    h.header_store = store_header(h, mem, bytes);
    h.header_stored = true;
    // (A) off: the header (and a LOST record before it) went out before the data_tail load
    // returned. The branch resolves when the load performs, not when the writer gets round
    // to it: decide now, waiting for the load, so that a store that performs after it is
    // squashed before anybody can have read it. Only a store that performed before the load
    // escapes (arm).
    if (h.check_pending) resolve_room_check(h, mem);
}

void PerfBuffer::output_record(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes) {
    output_header(h, mem, bytes); // decides the room check, if it was pending
    if (!h.dropped) {
        h.header_stored = false;
        store_body(h, mem, h.record_pos, bytes, h.header_store);
    }
    landed(h);
}

void PerfBuffer::landed(Handle& h) {
    if (!h.in_flight) return;
    h.in_flight = false;
    --m_stats.records_in_flight;
}

void PerfBuffer::store_record(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes) {
    const uint64_t pos = h.pos;
    store_body(h, mem, pos, bytes, store_header(h, mem, bytes));
}

// perf_output_put(handle, header): the header is a store of its own, before the body's
// fields (perf_output_sample and friends).
uint64_t PerfBuffer::store_header(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes) {
    if (bytes.size() > h.size) throw ModelError(m_params.name + ": record larger than its room");
    return output_copy(h, mem, bytes.data(), std::min<uint64_t>(bytes.size(), perf::kHeaderSize))
        .first;
}

void PerfBuffer::store_body(Handle& h, MemoryPort& mem, uint64_t pos,
                            const std::vector<uint8_t>& bytes, uint64_t header_store) {
    RecordStores stores{{header_store, 0, 0}, h.tail};
    if (bytes.size() > perf::kHeaderSize)
        std::tie(stores.body_first, stores.body_last) =
            output_copy(h, mem, bytes.data() + perf::kHeaderSize, bytes.size() - perf::kHeaderSize);
    stored(h, pos, bytes, stores);
}

void PerfBuffer::stored(Handle& h, uint64_t pos, const std::vector<uint8_t>& bytes,
                        const RecordStores& stores) {
    // Only a room check still pending (A off) can take these back (resolve_room_check).
    if (h.check_pending) {
        h.records.push_back(pos);
        stores.each([&h](uint64_t seq) { h.stores.push_back(seq); });
    }
    if (!m_observer) return;
    uint64_t lost = 0;
    if (bytes.size() >= perf::kLostRecordSize &&
        *reinterpret_cast<const uint32_t*>(bytes.data()) == PERF_RECORD_LOST)
        std::copy_n(bytes.data() + 16, 8, reinterpret_cast<uint8_t*>(&lost));
    m_observer->on_record_stored(pos, bytes, lost, stores);
}

void PerfBuffer::resolve_room_check(Handle& h, MemoryPort& mem) {
    // Waits, if need be, for the data_tail load to perform: that is when the branch
    // resolves. Stores that performed before the load did are out for good (possible on
    // arm only: under tso no store passes an earlier load); the rest are squashed.
    mem.wait_for(h.tail);         // other contexts of the CPU may run meanwhile
    if (!h.check_pending) return; // an interrupting writer resolved it while we waited
    h.check_pending = false;
    m_unresolved = nullptr;
    if (has_space(h.offset, mem.value(h.tail), h.reserved)) return;
    if (h.header_stored) h.stores.push_back(h.header_store); // its body never went out
    std::vector<uint64_t> escaped;
    for (uint64_t seq : h.stores)
        if (!mem.cancel_store(seq, h.tail)) escaped.push_back(seq);
    h.dropped = true;
    m_lost += h.lost_taken; // back: the LOST record that carried them is squashed too
    lose(h.event);
    if (h.lost_taken) --m_stats.lost_records_written;
    if (m_observer) {
        for (uint64_t pos : h.records)
            m_observer->on_record_retracted(pos);
        if (!escaped.empty()) m_observer->on_stores_escaped(escaped, h.tail);
    }
    // The reservation was speculative too: undone. No nested writer can have reserved
    // behind it, since an interrupt resolves the check first (output_begin).
    const uint64_t end = m_params.backward ? h.offset - h.reserved : h.offset + h.reserved;
    if (m_head != end) throw ModelError(m_params.name + ": a speculative reservation was built on");
    m_head = h.offset;
}

void PerfBuffer::lose(uint64_t event) {
    ++m_lost;
    ++m_stats.records_lost;
    if (m_lost_samples[event]++ == 0) ++m_stats.lost_samples_records;
}

void PerfBuffer::publish_head(MemoryPort& mem, uint64_t head) {
    const Addr data_head = m_params.user_page + perf::kOffDataHead;
    // (B): every record store above (ours and nested writers') performs before data_head.
    // Pairs with (C) in the consumer's data_head load. The kernel uses smp_wmb.
    switch (m_params.b) {
    case BarrierKind::wmb:
        mem.fence(Fence::wmb, Barrier::B);
        break;
    case BarrierKind::mb:
        mem.fence(Fence::mb, Barrier::B);
        break;
    case BarrierKind::release:
        mem.store_release(data_head, head, 8, Barrier::B);
        return;
    default:
        break; // (B) switched off: a plain store may pass the record stores
    }
    mem.store(data_head, head, 8);
}

bool PerfBuffer::output_whole(MemoryPort& mem, const perf::RecordContext& writer,
                              const std::vector<uint8_t>& bytes) {
    Handle h;
    if (!output_begin(h, mem, writer, bytes.size())) return false;
    output_record(h, mem, bytes);
    output_end(h, mem);
    return true;
}

void PerfBuffer::output_end(Handle& h, MemoryPort& mem) {
    if (h.check_pending) resolve_room_check(h, mem);
    landed(h); // a record reserved and never written is no longer in flight either
    // perf_output_put_handle (R3): only the outermost writer publishes data_head.
    if (m_nest > 1) {
        --m_nest;
        return;
    }
    uint64_t head;
    do {
        head = m_head;
        publish_head(mem, head);
        m_nest = 0;
        // An NMI that reserved after our read of rb->head: publish again for it.
        if (head != m_head) m_nest = 1;
    } while (head != m_head);
    if (h.wakeup != m_wakeup) wakeup();
}

void PerfBuffer::wakeup() {
    ++m_stats.wakeups;
    if (m_wakeup_sink) m_wakeup_sink->perf_output_wakeup();
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

namespace ringsim::models {

// What the producer counts in each buffer's BufferStats (__perf_output_begin,
// perf_output_put_handle, perf_output_wakeup, PERF_EVENT_IOC_PAUSE_OUTPUT).
void declare_perf_buffer_stats(StatRegistry& r) {
    using S = BufferStats;
    r.counter("records.produced", "records",
              "records the workload asked the kernel to write "
              "(PERF_RECORD_LOST not included)",
              &S::records_produced);
    r.counter("records.lost", "records",
              "records the kernel dropped for lack of room or while "
              "paused (rb->lost, R5)",
              &S::records_lost);
    // What users mean by loss: the share of what the workload produced that never made it.
    r.ratio("records.lost_fraction",
            "records.lost / records.produced (0 when nothing was "
            "produced)",
            "records.lost", "records.produced");
    r.counter("records.in_flight", "records",
              "records a writer had reserved room for but not yet stored when the run "
              "stopped: 0 unless the run was interrupted (SIGINT, SIGTERM)",
              &S::records_in_flight);
    r.counter("records.nested", "records",
              "records reserved while another writer of the same "
              "buffer was between begin and end (nest > 1, R3)",
              &S::records_nested);
    r.counter("lost_records_written", "records", "PERF_RECORD_LOST records the kernel wrote",
              &S::lost_records_written);
    r.counter("lost_samples_records", "records",
              "PERF_RECORD_LOST_SAMPLES records perf record "
              "writes at exit: one per event of the buffer whose event->lost_samples "
              "(PERF_FORMAT_LOST, counted with rb->lost) is not 0; their lost fields add up to "
              "records.lost",
              &S::lost_samples_records);
    r.counter("bytes.produced", "bytes", "bytes of the records counted in records.produced",
              &S::bytes_produced);
    r.counter("wakeups", "wakeups",
              "perf_output_wakeup calls: watermark or wakeup_events "
              "crossed (R6, R7, R8)",
              &S::wakeups);
    r.counter("paused_intervals", "intervals",
              "PERF_EVENT_IOC_PAUSE_OUTPUT pauses (R9), the "
              "consumer's own included",
              &S::paused_intervals);
}

} // namespace ringsim::models
