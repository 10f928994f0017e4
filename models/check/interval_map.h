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

    IntervalMap() = default;
    // A copy's or move's remembered last span would name the other map's node.
    IntervalMap(const IntervalMap& o) : m(o.m) {}
    IntervalMap(IntervalMap&& o) noexcept : m(std::move(o.m)) { o.m_last_valid = false; }
    IntervalMap& operator=(const IntervalMap& o) {
        m = o.m;
        m_last_valid = false;
        return *this;
    }
    IntervalMap& operator=(IntervalMap&& o) noexcept {
        m = std::move(o.m);
        m_last_valid = o.m_last_valid = false;
        return *this;
    }

    // Tags the parts of [first, end) not yet covered; returns the bytes newly tagged.
    // Looks each hole up afresh: put() may merge (erase) the spans around it.
    uint64_t insert(uint64_t first, uint64_t end, Tag tag) {
        if (first >= end) return 0;
        // Books grow at their end: a source's losses and harvests come in stream order, each
        // starting where the last span ends or after it. Past every span there is nothing to
        // look up (the last span by start ends last: they are disjoint).
        if (m.empty() || first >= last()->second.end) {
            append(first, end, tag);
            return end - first;
        }
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
        m_last_valid = false;
        while (!m.empty() && m.begin()->second.end <= pos)
            m.erase(m.begin());
    }
    const std::map<uint64_t, Span>& spans() const { return m; }
    bool empty() const { return m.empty(); }

private:
    using Spans = std::map<uint64_t, Span>;
    // The last span, remembered (the map must not be empty).
    typename Spans::iterator last() {
        if (!m_last_valid) {
            m_last = std::prev(m.end());
            m_last_valid = true;
        }
        return m_last;
    }
    // [a, b) past every span: the last span grows when it ends at a with the same tag.
    void append(uint64_t a, uint64_t b, const Tag& tag) {
        if (!m.empty() && last()->second.end == a && m_last->second.tag == tag) {
            m_last->second.end = b;
            return;
        }
        m_last = m.emplace_hint(m.end(), a, Span{b, tag});
        m_last_valid = true;
    }
    void put(uint64_t a, uint64_t b, const Tag& tag) {
        m_last_valid = false; // it may merge (erase) the last span or add one after it
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
    Spans m;
    // The last span, while valid: a lookup of the map's end is a call into the tree code,
    // and books grow at their end one claim after another.
    typename Spans::iterator m_last;
    bool m_last_valid = false;
};

} // namespace ringsim::models
