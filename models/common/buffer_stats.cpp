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
        {"violations.total", "violations", "corrupt, missing or duplicated records and "
         "accounting mismatches", &S::violations_total},
        {"violations.corrupt", "violations", "records whose bytes differ from what the "
         "producer wrote", &S::violations_corrupt},
        {"violations.missing", "violations", "records the consumer skipped without a loss "
         "or an overwrite to explain it", &S::violations_missing},
        {"violations.duplicated", "violations", "records delivered more than once",
         &S::violations_duplicated},
        {"violations.accounting", "violations", "runs where produced != delivered + lost + "
         "unread + overwritten, or LOST reports do not add up", &S::violations_accounting},
    };
    return defs;
}

} // namespace ringsim::models
