// The counters of one ring buffer. The builder gives each buffer one block; the kernel model,
// the wakeup, the consumer, its MMU and the checker each update their part and declare it
// (path, unit, description) in the statistics registry, in their own .cpp.
#pragma once

#include <cstdint>

namespace ringsim::models {

struct BufferStats {
    // Producer side (kernel/events/ring_buffer.c).
    uint64_t records_produced = 0;
    uint64_t bytes_produced = 0;
    uint64_t records_lost = 0;
    uint64_t records_in_flight = 0; // reserved, not yet stored: only an interrupted run ends so
    uint64_t records_nested = 0;
    uint64_t lost_records_written = 0;
    uint64_t lost_samples_records = 0; // events with event->lost_samples != 0
    uint64_t wakeups = 0;
    uint64_t wakeups_delivered = 0;
    uint64_t paused_intervals = 0;
    // Consumer side (tools/lib/perf/mmap.c, tools/perf/util/mmap.c).
    uint64_t consumer_polls = 0;
    uint64_t consumer_passes = 0;
    uint64_t consumer_bytes_copied = 0;
    uint64_t consumer_keep_up_failures = 0;
    uint64_t consumer_overwrite_races = 0;
    // Checker: ground truth against what the consumer parsed.
    uint64_t records_delivered = 0;
    uint64_t samples_in_perf_data = 0; // PERF_RECORD_SAMPLE, delivered or copied twice
    uint64_t bytes_delivered = 0;
    uint64_t records_unread = 0;
    uint64_t bytes_unread = 0;
    uint64_t records_overwritten = 0;
    uint64_t records_corrupted = 0;
    uint64_t records_missing = 0;
    uint64_t records_duplicated = 0;
    uint64_t records_skipped = 0;
    uint64_t lost_records = 0;
    uint64_t lost_reported = 0;
    uint64_t lost_unreported = 0;
    uint64_t violations_total = 0;
    uint64_t violations_stale = 0;
    uint64_t violations_overrun = 0;
    uint64_t violations_torn = 0;
    uint64_t violations_corrupt = 0;
    uint64_t violations_missing = 0;
    uint64_t violations_duplicated = 0;
    uint64_t violations_accounting = 0;
};

} // namespace ringsim::models
