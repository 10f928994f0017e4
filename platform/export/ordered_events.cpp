#include "platform/export/ordered_events.h"

#include <algorithm>

namespace ringsim::platform::perf_data {

void OrderedEvents::queue(uint64_t timestamp) {
    if (timestamp == 0 || timestamp == ~uint64_t{0}) return; // -ETIME: not queued
    if (timestamp < m_last_flush) ++m_unordered;
    // queue_event: the first event of an empty queue sets max_timestamp, a later one
    // raises it when it goes to the tail.
    if (m_queued.empty() || timestamp > m_max_timestamp) m_max_timestamp = timestamp;
    m_queued.push_back(timestamp);
}

void OrderedEvents::finished_round() {
    // do_flush: nothing while next_flush is 0; else deliver up to it, in time order.
    if (m_next_flush) {
        // The delivered ones leave in time order: last_flush is the newest of them.
        size_t kept = 0;
        uint64_t newest = 0;
        bool delivered = false;
        for (const uint64_t t : m_queued) {
            if (t <= m_next_flush) {
                newest = std::max(newest, t);
                delivered = true;
            } else {
                m_queued[kept++] = t;
            }
        }
        m_queued.resize(kept);
        if (delivered) m_last_flush = newest;
    }
    m_next_flush = m_max_timestamp;
}

} // namespace ringsim::platform::perf_data
