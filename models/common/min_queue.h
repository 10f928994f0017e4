// A priority queue of plain values (the wake queue's instants), least first, kept as an
// array sorted in descending order: top and pop at its end, push a binary search and one
// move of the values below it. For the few dozen values it holds, that is about half what a
// binary heap costs (std::pop_heap's walk to a leaf and back, or a hand-written sift-down:
// five levels of two comparisons at 33 values; issue 13); it grows linearly with their
// number where a heap grows as their log. Equal values come out in no particular order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace ringsim::models {

template <class T> class MinQueue {
public:
    bool empty() const { return m_v.empty(); }
    size_t size() const { return m_v.size(); }
    const T& top() const { return m_v.back(); }

    // x goes before the first value less than it.
    void push(T x) {
        m_v.insert(std::upper_bound(m_v.begin(), m_v.end(), x, std::greater<T>()), x);
    }
    void pop() { m_v.pop_back(); }

private:
    std::vector<T> m_v; // descending: the least value last
};

} // namespace ringsim::models
