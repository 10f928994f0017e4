// The AUX path's books: the causes a trace byte can be lost for, and the per-buffer counts
// the AUX checker keeps (its .cpp declares them in the statistics registry). Trace bytes are
// ETM bytes (the count packets and their A-Sync / Trace Info), before the formatter's frames
// and after the deformatter.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

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

// One buffer's AUX books, kept by the AUX checker (aux_checker.cpp declares their paths):
// the fate of every trace byte the ETMs of this buffer's event produced.
struct AuxBooks {
    uint64_t bytes_produced = 0, bytes_delivered = 0, bytes_lost = 0, bytes_unread = 0;
    uint64_t bytes_corrupted = 0, bytes_untraced = 0;
    uint64_t bytes_in_flight = 0; // in an ETM's FIFO or a sink when an interrupted run stopped
    std::array<uint64_t, kGapCauses> lost_by_cause{}; // bytes (untraced for the last two)
    std::array<uint64_t, kGapCauses> gaps_by_cause{}; // occurrences
    // Jumps between two decoded counts of a source: the discontinuities a decoder of the
    // data perf read sees (loss before its first or after its last count is none).
    uint64_t discontinuities = 0;
};

} // namespace ringsim::models
