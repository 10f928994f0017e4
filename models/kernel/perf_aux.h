// The AUX half of a perf ring buffer as the perf core keeps it, and the two calls a PMU
// driver brackets its hardware with: perf_aux_output_begin (the room check on aux_tail,
// barrier (A) for AUX) and perf_aux_output_end (PERF_RECORD_AUX into the regular buffer,
// then aux_head, then the AUX watermark wakeup). Mirrors kernel/events/ring_buffer.c :
// perf_aux_output_begin, perf_aux_output_end, perf_aux_output_flag, rb_need_aux_wakeup
// (KERNEL-SEMANTICS A1-A7).
// Leaves out: perf_aux_output_skip, aux pause/resume (A8), the refcounts and RCU.
// The driver's (B) is not here: the perf core adds no barrier before aux_head (A3 step 4).
#pragma once

#include "models/kernel/perf_buffer.h"
#include "models/memory/linux_barriers.h"
#include "models/memory/memory_port.h"

#include <cstdint>

namespace ringsim::models {

struct PerfAuxParams {
    std::string name;
    Addr user_page = 0;                  // the control page: aux_head / aux_tail live there
    uint64_t aux_size = 0;               // bytes, a power of two (M3)
    bool overwrite = false;              // read-only AUX mapping: snapshot mode (A7)
    uint64_t aux_watermark = 0;          // attr.aux_watermark; 0 = aux_size / 2 (M3)
    BarrierKind a = kLinuxAuxBarriers.a; // (A) for AUX: ctrl | none
    bool head_release = false;           // the driver's (B) built as a release store of aux_head
};

class PerfAux {
public:
    // struct perf_output_handle's AUX part.
    struct Handle {
        uint64_t head = 0;  // where the driver writes from (free-running)
        uint64_t size = 0;  // room the driver may fill; 0 in overwrite mode
        uint64_t flags = 0; // PERF_AUX_FLAG_*
        bool active = false;
    };

    explicit PerfAux(const PerfAuxParams& params);
    // rb_alloc_aux at the AUX mmap (M3): a mapping without PROT_WRITE is overwrite mode.
    void set_overwrite(bool overwrite);
    bool overwrite() const { return m_p.overwrite; }

    // perf_aux_output_begin (A1, A2). False when there is no room: the caller must not start
    // its hardware, the event is to be disabled until user space re-enables it (A6), and the
    // tool is woken through `rb`.
    bool output_begin(Handle& h, MemoryPort& mem, PerfBuffer& rb);
    // perf_aux_output_flag: OVERWRITE is the core's own and is refused.
    void output_flag(Handle& h, uint64_t flag);
    // perf_aux_output_end (A3): the AUX record goes out through `rb` (and may be lost there,
    // A5), then aux_head is stored, then the tool is woken through `rb` if the AUX watermark
    // was crossed or the data was truncated. Returns whether it woke the tool.
    bool output_end(Handle& h, MemoryPort& mem, uint64_t size, PerfBuffer& rb,
                    const perf::RecordContext& writer);

    uint64_t aux_head() const { return m_aux_head; }
    uint64_t watermark() const { return m_watermark; }
    // perf_event_disable_inatomic was requested (no room at begin, or TRUNCATED at end).
    bool disable_requested() const { return m_disable; }
    void clear_disable() { m_disable = false; } // PERF_EVENT_IOC_ENABLE from the tool (A9)
    // The last output_end's PERF_RECORD_AUX: whether one was due and written, and its offset.
    bool last_record_due() const { return m_last_due; }
    bool last_record_written() const { return m_last_written; }
    uint64_t last_record_offset() const { return m_last_offset; }
    uint64_t records_emitted() const { return m_records; }
    uint64_t records_lost() const { return m_records_lost; }

private:
    PerfAuxParams m_p;
    uint64_t m_aux_head = 0;   // rb->aux_head
    uint64_t m_aux_wakeup = 0; // rb->aux_wakeup
    uint64_t m_watermark = 0;  // rb->aux_watermark
    bool m_nest = false;       // rb->aux_nest
    bool m_disable = false;
    uint64_t m_records = 0, m_records_lost = 0;
    bool m_last_due = false, m_last_written = false;
    uint64_t m_last_offset = 0;
    std::vector<uint8_t> m_scratch;
};

} // namespace ringsim::models
