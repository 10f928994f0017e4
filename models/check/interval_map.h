// Disjoint half-open intervals [first, end) of uint64 positions, each with a tag, kept in
// a std::map. insert() keeps what is already there: the first fate recorded for a byte
// wins, later claims only fill the holes.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <map>

namespace ringsim::models {

template <typename Tag> class IntervalMap {
public:
    struct Span {
        uint64_t end = 0;
        Tag tag{};
    };

    // Tags the parts of [first, end) not yet covered; returns the bytes newly tagged.
    // Looks each hole up afresh: put() may merge (erase) the spans around it.
    uint64_t insert(uint64_t first, uint64_t end, Tag tag) {
        uint64_t added = 0;
        uint64_t at = first;
        while (at < end) {
            auto it = m.upper_bound(at);
            if (it != m.begin() && std::prev(it)->second.end > at) {
                at = std::prev(it)->second.end; // covered: skip to the end of that span
                continue;
            }
            const uint64_t stop = it == m.end() ? end : std::min(end, it->first);
            put(at, stop, tag);
            added += stop - at;
            at = stop;
        }
        return added;
    }
    // Calls f(first, end, tag) for every tagged part of [first, end), in order.
    void for_each_in(uint64_t first, uint64_t end,
                     const std::function<void(uint64_t, uint64_t, const Tag&)>& f) const {
        auto it = m.upper_bound(first);
        if (it != m.begin()) --it;
        for (; it != m.end() && it->first < end; ++it) {
            const uint64_t a = std::max(first, it->first), b = std::min(end, it->second.end);
            if (a < b) f(a, b, it->second.tag);
        }
    }
    // The tagged part containing `pos`, if any.
    const std::pair<const uint64_t, Span>* find(uint64_t pos) const {
        auto it = m.upper_bound(pos);
        if (it == m.begin()) return nullptr;
        --it;
        return it->second.end > pos ? &*it : nullptr;
    }
    void erase_before(uint64_t pos) {
        while (!m.empty() && m.begin()->second.end <= pos)
            m.erase(m.begin());
    }
    const std::map<uint64_t, Span>& spans() const { return m; }
    bool empty() const { return m.empty(); }

private:
    void put(uint64_t a, uint64_t b, const Tag& tag) {
        // Merge with an adjacent span of the same tag on the left.
        auto it = m.lower_bound(a);
        if (it != m.begin()) {
            auto prev = std::prev(it);
            if (prev->second.end == a && prev->second.tag == tag) {
                prev->second.end = b;
                if (it != m.end() && it->first == b && it->second.tag == tag) {
                    prev->second.end = it->second.end;
                    m.erase(it);
                }
                return;
            }
        }
        if (it != m.end() && it->first == b && it->second.tag == tag) {
            const uint64_t e = it->second.end;
            m.erase(it);
            m[a] = Span{e, tag};
            return;
        }
        m[a] = Span{b, tag};
    }
    std::map<uint64_t, Span> m;
};

} // namespace ringsim::models
