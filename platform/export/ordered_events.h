// perf report's time ordering of the records it reads (tools/perf/util/ordered-events.c,
// perf 6.1), replayed on what perf.data holds so that ringsim can say beforehand whether
// perf will warn "N out of order events recorded.": every record with a timestamp is queued
// (ordered_events__queue), each PERF_RECORD_FINISHED_ROUND delivers those not later than
// the newest timestamp queued before the previous round ended (OE_FLUSH__ROUND: do_flush up
// to next_flush, then next_flush = max_timestamp), and a record older than the last one
// delivered is out of order. It happens when a record reaches perf.data more than one round
// after newer ones from other buffers (a slow writer, a buffer read late).
#pragma once

#include <cstdint>
#include <vector>

namespace ringsim::platform::perf_data {

class OrderedEvents {
public:
    // A record with this perf_clock timestamp (0 or ~0: none, delivered at once).
    void queue(uint64_t timestamp);
    // PERF_RECORD_FINISHED_ROUND.
    void finished_round();
    uint64_t unordered() const { return m_unordered; } // oe->nr_unordered_events

private:
    std::vector<uint64_t> m_queued; // unsorted: a round delivers by value, in one pass
    uint64_t m_max_timestamp = 0, m_next_flush = 0, m_last_flush = 0;
    uint64_t m_unordered = 0;
};

} // namespace ringsim::platform::perf_data
