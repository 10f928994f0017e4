#include "models/common/buffer_stats.h"

namespace ringsim::models {

const std::vector<StatDef>& buffer_stat_defs() {
    using S = BufferStats;
    static const std::vector<StatDef> defs = {
        {"records.produced", "records", "records the workload asked the kernel to write "
         "(PERF_RECORD_LOST not included)", &S::records_produced},
        {"records.delivered", "records", "records the consumer parsed and the checker "
         "verified byte for byte", &S::records_delivered},
        {"records.lost", "records", "records the kernel dropped for lack of room or while "
         "paused (rb->lost, R5)", &S::records_lost},
        {"records.unread", "records", "records still in the buffer, unread, when the run "
         "ended", &S::records_unread},
        {"records.overwritten", "records", "records of an overwrite-mode buffer replaced by "
         "newer ones before the consumer read them", &S::records_overwritten},
        {"records.corrupted", "records", "records that reached the consumer with bytes other "
         "than the producer stored (each is also a stale, overwritten or torn violation)",
         &S::records_corrupted},
        {"records.missing", "records", "records the consumer skipped with no loss or overwrite "
         "to explain it (each is also a missing violation)", &S::records_missing},
        {"records.duplicated", "records", "records perf_mmap__push copied a second time, intact: "
         "data_head moved between its two reads (C4); not counted in records.delivered",
         &S::records_duplicated},
        {"records.skipped", "records", "records the tool stepped over without reading: "
         "libperf's perf_mmap__read_done moves prev to a data_head read taken after the last "
         "event, and a keep-up failure drops everything unread (C3)", &S::records_skipped},
        {"records.nested", "records", "records reserved while another writer of the same "
         "buffer was between begin and end (nest > 1, R3)", &S::records_nested},
        {"lost_records", "records", "PERF_RECORD_LOST records delivered: perf's \"lost N "
         "chunks\"", &S::lost_records},
        {"lost_reported", "records", "sum of the lost fields of the delivered "
         "PERF_RECORD_LOST records", &S::lost_reported},
        {"lost_unreported", "records", "losses no delivered PERF_RECORD_LOST reported by the "
         "end (pending in rb->lost, or in an unread or overwritten LOST record)",
         &S::lost_unreported},
        {"lost_records_written", "records", "PERF_RECORD_LOST records the kernel wrote",
         &S::lost_records_written},
        {"bytes.produced", "bytes", "bytes of the records counted in records.produced",
         &S::bytes_produced},
        {"bytes.delivered", "bytes", "bytes of the records counted in records.delivered",
         &S::bytes_delivered},
        {"bytes.unread", "bytes", "bytes of the records counted in records.unread",
         &S::bytes_unread},
        {"wakeups", "wakeups", "perf_output_wakeup calls: watermark or wakeup_events crossed "
         "(R6, R7, R8)", &S::wakeups},
        {"wakeups_delivered", "wakeups", "irq_work runs that woke the poll waitqueue; fewer "
         "than wakeups when they coalesce (R8)", &S::wakeups_delivered},
        {"paused_intervals", "intervals", "PERF_EVENT_IOC_PAUSE_OUTPUT pauses (R9), the "
         "consumer's own included", &S::paused_intervals},
        {"consumer.polls", "calls", "per buffer: poll() returns that reported POLLIN for "
         "it; in total: the consumer's poll() calls", &S::consumer_polls},
        {"consumer.passes", "passes", "read passes over the buffer (perf_mmap__push or a "
         "read_init/read_event/consume loop)", &S::consumer_passes},
        {"consumer.bytes_copied", "bytes", "bytes the consumer copied out of the mapping",
         &S::consumer_bytes_copied},
        {"consumer.keep_up_failures", "passes", "passes that found head more than a buffer "
         "ahead (\"failed to keep up with mmap data\", C3)", &S::consumer_keep_up_failures},
        {"consumer.overwrite_races", "records", "overwrite buffers: records copied while a newer "
         "record was landing on them (a writer already past the paused check when the tool "
         "paused output, R9); they are counted in records.overwritten, not delivered",
         &S::consumer_overwrite_races},
        {"mmu.page_faults", "faults", "page faults the consumer took on this buffer's mappings: "
         "first touches under lazy mapping (M1), the first write to the control page under "
         "either (page_mkwrite / pfn_mkwrite, M2)", &S::mmu_page_faults},
        {"mmu.fault_time", "ps", "time the consumer spent in those faults", &S::mmu_fault_time},
        {"mmu.tlb_misses", "misses", "the consumer's TLB misses on this buffer's pages, each a "
         "page walk", &S::mmu_tlb_misses},
        {"mmu.tlb_hits", "hits", "the consumer's TLB hits on this buffer's pages",
         &S::mmu_tlb_hits},
        {"violations.total", "violations", "every violation below", &S::violations_total},
        {"violations.stale", "violations", "records read with bytes older than the record the "
         "data_head promised (message-passing shape: (B) or (C) missing)",
         &S::violations_stale},
        {"violations.overwritten", "violations", "records read after newer data replaced them "
         "(load-buffering shape: (A) or (D) missing)", &S::violations_overwritten},
        {"violations.torn", "violations", "records read with both older and newer bytes than "
         "their own", &S::violations_torn},
        {"violations.corrupt", "violations", "copies the checker could not parse into records "
         "at all (a header at a place no record starts)", &S::violations_corrupt},
        {"violations.missing", "violations", "records the consumer skipped without a loss "
         "or an overwrite to explain it", &S::violations_missing},
        {"violations.duplicated", "violations", "records delivered more than once by a reader "
         "that never re-reads (libperf), or re-read by any reader with changed bytes",
         &S::violations_duplicated},
        {"violations.accounting", "violations", "buffers where produced != delivered + lost "
         "+ unread + overwritten + corrupted + missing + skipped, or LOST reports do not add up", &S::violations_accounting},
    };
    return defs;
}

} // namespace ringsim::models
