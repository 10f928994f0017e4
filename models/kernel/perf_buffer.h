// The regular perf ring buffer as the kernel keeps it (struct perf_buffer) and the output
// path that writes into it: __perf_output_begin, __output_copy, perf_output_put_handle.
// Mirrors kernel/events/ring_buffer.c and kernel/events/internal.h (KERNEL-SEMANTICS R1-R9).
//
// Writers of one buffer all run on one CPU at a time (R2), so the local_t operations of
// the kernel are plain integer updates here; nesting (task < softirq < irq < NMI) is what
// `nest` tracks. Every shared-memory access goes through the writer's MemoryPort.
// event->lost_samples (PERF_FORMAT_LOST) is counted beside rb->lost, per event writing here.
// Leaves out: the vmalloc (page_order) layout, aux fields (the AUX path has its own model),
// RCU.
#pragma once

#include "models/common/buffer_stats.h"
#include "models/common/types.h"
#include "models/kernel/perf_records.h"
#include "models/memory/linux_barriers.h"
#include "models/memory/memory_port.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ringsim::models {

struct PerfBufferParams {
    std::string name;
    Addr user_page = 0; // kernel address of the control page
    Addr data = 0;      // kernel address of data page 0 (pages are contiguous here)
    uint64_t page_size = 0;
    uint64_t nr_pages = 0;                // a power of two (R11)
    bool overwrite = false;               // read-only mapping: no tail, no space check (R1, R11)
    bool backward = false;                // attr.write_backward (R4)
    uint64_t wakeup_watermark = 0;        // attr.wakeup_watermark; 0 = attr.watermark not set
    uint64_t wakeup_events = 0;           // attr.wakeup_events (R7)
    BarrierKind a = kLinuxDataBarriers.a; // (A): ctrl | none
    BarrierKind b = kLinuxDataBarriers.b; // (B): wmb | mb | release | none
};

// The stores that wrote one record: its header (perf_output_put), then its body's cache
// lines, issued together (__output_copy) as body_first..body_last (0: a header only). A
// writer may be interrupted between the two, so other stores may come in between.
struct RecordStoreSeqs {
    uint64_t header = 0;
    uint64_t body_first = 0;
    uint64_t body_last = 0;
    template <class F> void each(F f) const {
        if (header) f(header);
        for (uint64_t seq = body_first; seq && seq <= body_last; ++seq)
            f(seq);
    }
};
// With the data_tail load that let them in: what a record that overwrites another is
// explained by (the checker keeps only the stores of every other record).
struct RecordStores : RecordStoreSeqs {
    LoadTicket tail; // the room check's data_tail load (seq 0: none, overwrite mode)
};

// Ground truth: told about every record at the moment its bytes are stored.
class RecordObserver {
public:
    virtual ~RecordObserver() = default;
    // `pos` is the free-running offset of the record's first byte; `lost` is the count a
    // PERF_RECORD_LOST carries (0 for other records); `stores` wrote its bytes.
    virtual void on_record_stored(uint64_t pos, const std::vector<uint8_t>& bytes, uint64_t lost,
                                  const RecordStores& stores) = 0;
    // With (A) off, a record whose room check failed after its stores were issued: it is
    // dropped (counted lost), but its bytes are in memory (MEMORY-MODEL.md).
    virtual void on_record_retracted(uint64_t pos) = 0;
    // With (A) off, stores of a failed reservation that performed before its data_tail
    // load `tail` did: squashing came too late, they are in memory for good.
    virtual void on_stores_escaped(const std::vector<uint64_t>& seqs, const LoadTicket& tail) {
        (void)seqs;
        (void)tail;
    }
};

// perf_output_wakeup's far end: queues the irq_work that wakes the poll waitqueue (R8).
class WakeupSink {
public:
    virtual ~WakeupSink() = default;
    virtual void perf_output_wakeup() = 0;
};

class PerfBuffer {
public:
    struct Handle {
        uint64_t pos = 0;    // free-running offset of the next byte this handle writes
        uint64_t size = 0;   // bytes reserved and not yet written
        uint64_t wakeup = 0; // rb->wakeup at perf_output_get_handle
        // (A) off: the room check waits for the data_tail load while the stores go ahead.
        bool check_pending = false;
        bool dropped = false; // the late check found no room: nothing more is stored
        LoadTicket tail;
        uint64_t offset = 0;              // rb->head at reservation
        uint64_t reserved = 0;            // bytes reserved (LOST record included)
        uint64_t lost_taken = 0;          // rb->lost moved into our PERF_RECORD_LOST
        uint64_t event = 0;               // the writer's event->id, for event->lost_samples
        std::vector<uint8_t> lost_record; // written with the first record when check_pending
        bool header_stored = false;       // output_header ran for the record in progress
        uint64_t record_pos = 0;          // ... its position, and its header's first store
        uint64_t header_store = 0;
        std::vector<uint64_t> records; // positions of the records this handle stored
        std::vector<uint64_t> stores;  // their store sequence numbers
        bool in_flight = false;        // the caller's record: reserved, not yet stored

        // Every field as a new handle has it (a field added above belongs here too), but the
        // vectors keep their capacity: output_begin starts each record with it, and a
        // handle's assignment from Handle{} cost three vectors' worth of moves and frees.
        void reset() {
            pos = size = wakeup = 0;
            check_pending = dropped = false;
            tail = LoadTicket{};
            offset = reserved = lost_taken = event = 0;
            lost_record.clear();
            header_stored = false;
            record_pos = header_store = 0;
            records.clear();
            stores.clear();
            in_flight = false;
        }
    };

    PerfBuffer(const PerfBufferParams& params, BufferStats& stats);
    void set_observer(RecordObserver* o) { m_observer = o; }
    void set_wakeup_sink(WakeupSink* w) { m_wakeup_sink = w; }

    // perf_event_init_userpage: the fields the kernel fills before user space maps it.
    void init_userpage(MemoryPort& mem);

    // __perf_output_begin for a record of `size` bytes from `writer`. On success the
    // handle owns the room for the record (and writes a pending PERF_RECORD_LOST first,
    // R5); on failure the loss is counted and false returned (-ENOSPC).
    bool output_begin(Handle& h, MemoryPort& mem, const perf::RecordContext& writer, uint64_t size);
    // perf_output_sample's first step, perf_output_put(handle, header): the record's
    // header is stored right after the reservation, before the body's fields are copied.
    void output_header(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes);
    // The rest of the record's bytes, through __output_copy (a record may straddle the
    // buffer end); stores the header first if output_header did not.
    void output_record(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes);
    // perf_output_end -> perf_output_put_handle (R3).
    void output_end(Handle& h, MemoryPort& mem);
    // A whole record in one go, as the side-band records do (perf_event_aux_event,
    // perf_log_itrace_start, perf_report_aux_output_id): begin, copy, end. False when it
    // was lost (counted, R5).
    bool output_whole(MemoryPort& mem, const perf::RecordContext& writer,
                      const std::vector<uint8_t>& bytes);
    // perf_output_sample's wakeup_events accounting (R7), for PERF_RECORD_SAMPLE only.
    void count_sample_event();

    // perf_output_wakeup for a caller outside the output path (perf_aux_output_end, A3).
    void wakeup();

    // PERF_EVENT_IOC_PAUSE_OUTPUT (R9).
    void set_paused(bool paused);

    const PerfBufferParams& params() const { return m_params; }
    uint64_t data_size() const { return m_params.nr_pages * m_params.page_size; }
    uint64_t watermark() const { return m_watermark; }
    uint64_t pending_lost() const { return m_lost; }
    // event->lost_samples of each event that lost a record here, by event id: what perf
    // record reads at exit (PERF_FORMAT_LOST) to write PERF_RECORD_LOST_SAMPLES.
    const std::map<uint64_t, uint64_t>& lost_samples() const { return m_lost_samples; }
    bool writer_active() const { return m_nest != 0; }

private:
    // Returns the sequence numbers of the first and last store of the copy.
    std::pair<uint64_t, uint64_t> output_copy(Handle& h, MemoryPort& mem, const uint8_t* src,
                                              uint64_t n);
    bool has_space(uint64_t offset, uint64_t tail, uint64_t size) const;
    // A whole record: its header store, then its body's (the LOST record, side-band ones).
    void store_record(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes);
    // The record's header at h.pos; returns its store's sequence number.
    uint64_t store_header(Handle& h, MemoryPort& mem, const std::vector<uint8_t>& bytes);
    // The rest of the record at h.pos, then books the record (first byte at `pos`).
    void store_body(Handle& h, MemoryPort& mem, uint64_t pos, const std::vector<uint8_t>& bytes,
                    uint64_t header_store);
    // Books a record whose stores are out: the handle's list, the observer.
    void stored(Handle& h, uint64_t pos, const std::vector<uint8_t>& bytes,
                const RecordStores& stores);
    void resolve_room_check(Handle& h, MemoryPort& mem);
    // The caller's record is stored or dropped: no longer in flight.
    void landed(Handle& h);
    void publish_head(MemoryPort& mem, uint64_t head);
    // The fail path (and the paused one): local_inc(&rb->lost),
    // atomic64_inc(&event->lost_samples).
    void lose(uint64_t event);

    PerfBufferParams m_params;
    BufferStats& m_stats;
    RecordObserver* m_observer = nullptr;
    WakeupSink* m_wakeup_sink = nullptr;

    // struct perf_buffer's local_t fields.
    uint64_t m_head = 0;   // rb->head: reserved up to here (free-running, R2)
    uint64_t m_nest = 0;   // rb->nest: writers between get_handle and put_handle
    uint64_t m_events = 0; // rb->events (R7)
    uint64_t m_wakeup = 0; // rb->wakeup: the last wakeup stamp (R6)
    std::map<uint64_t, uint64_t> m_lost_samples; // event->lost_samples, by event id
    uint64_t m_lost = 0;                         // rb->lost (R5)
    uint64_t m_watermark = 0;
    bool m_paused = false; // rb->paused (R9)
    // (A) off: the writer whose room check waits for its data_tail load (at most one: a
    // nested writer resolves its interrupted writer's check first).
    Handle* m_unresolved = nullptr;
    std::vector<uint8_t> m_scratch;
};

} // namespace ringsim::models
