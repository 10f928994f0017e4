#include "platform/export/ordered_events.h"

namespace ringsim::platform::perf_data {

void OrderedEvents::queue(uint64_t timestamp) {
    if (timestamp == 0 || timestamp == ~uint64_t{0}) return; // -ETIME: not queued
    if (timestamp < m_last_flush) ++m_unordered;
    // queue_event: the first event of an empty queue sets max_timestamp, a later one
    // raises it when it goes to the tail.
    if (m_queued.empty() || timestamp > m_max_timestamp) m_max_timestamp = timestamp;
    m_queued.insert(timestamp);
}

void OrderedEvents::finished_round() {
    // do_flush: nothing while next_flush is 0; else deliver up to it, in time order.
    if (m_next_flush) {
        const auto end = m_queued.upper_bound(m_next_flush);
        if (end != m_queued.begin()) m_last_flush = *std::prev(end);
        m_queued.erase(m_queued.begin(), end);
    }
    m_next_flush = m_max_timestamp;
}

} // namespace ringsim::platform::perf_data
