// The statistics of the AUX path, declared once like buffer_stats.h: stable dotted paths
// (under "total.aux" in stats.json), units and descriptions; `ringsim stats` and
// docs/statistics.md list this table. Trace bytes are ETM bytes (the count packets and
// their A-Sync / Trace Info), before the formatter's frames and after the deformatter.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringsim::models {

// The causes a gap in the decoded trace can have (KERNEL-SEMANTICS §10). The first six lose
// trace a source produced; the last two are windows in which it produced nothing.
enum class GapCause : uint8_t {
    fifo_overflow,
    sink_wrap,
    aux_shortage,
    memerr,
    snapshot_overwrite,
    record_lost,
    sink_stopped,
    stop_window,
    aux_disabled,
    count,
};
constexpr size_t kGapCauses = static_cast<size_t>(GapCause::count);
constexpr size_t kLossCauses = 7; // fifo_overflow .. sink_stopped, as TraceLoss
const char* to_string(GapCause c);

struct AuxStats {
    uint64_t bytes_produced = 0, bytes_delivered = 0, bytes_lost = 0, bytes_unread = 0;
    uint64_t bytes_corrupted = 0, bytes_untraced = 0;
    std::array<uint64_t, kGapCauses> lost_by_cause{};  // bytes (untraced for the last two)
    std::array<uint64_t, kGapCauses> gaps_by_cause{};  // occurrences
    uint64_t records = 0, records_lost = 0, truncated = 0;
    uint64_t records_delivered = 0, truncated_delivered = 0;
    uint64_t starts = 0, begin_failures = 0, stops = 0, kernel_disables = 0, reenables = 0;
    uint64_t harvests = 0, harvests_skipped_shared = 0, harvested_bytes = 0;
    uint64_t barrier_packets = 0, memerr_captures = 0, wrapped_captures = 0;
    uint64_t sink_captures = 0, sink_bursts = 0, sink_dma_stores = 0, sink_overflow_bytes = 0;
    uint64_t sink_sg_walk_failures = 0, sink_sg_walk_time = 0;
    uint64_t consumer_reads = 0, consumer_bytes_copied = 0, consumer_snapshots = 0;
    uint64_t consumer_lapped_reads = 0;
    uint64_t decoded_packets = 0;
    uint64_t violations_total = 0, violations_stale = 0, violations_overwritten = 0;
    uint64_t violations_unexplained = 0, violations_duplicated = 0, violations_accounting = 0;
};

struct AuxStatDef {
    const char* path; // below total.aux
    const char* unit;
    const char* description;
    uint64_t AuxStats::*field = nullptr;
    int cause = -1;          // lost_by_cause / gaps_by_cause entry
    bool gaps = false;
};

const std::vector<AuxStatDef>& aux_stat_defs();
uint64_t aux_stat_value(const AuxStats& s, const AuxStatDef& d);

} // namespace ringsim::models
