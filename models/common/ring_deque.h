// A double-ended queue in one growing array used as a ring: push and pop at both ends
// without allocating in steady state. std::deque allocates a block every 512 bytes, which
// for elements of a few hundred bytes is an allocation every other push (issue 13 §1).
// Insertion in the middle exists for the rare out-of-order element and costs a shift.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ringsim::models {

template <class T> class RingDeque {
public:
    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }
    T& operator[](size_t i) { return m_buf[(m_head + i) & (m_buf.size() - 1)]; }
    const T& operator[](size_t i) const { return m_buf[(m_head + i) & (m_buf.size() - 1)]; }
    T& front() { return (*this)[0]; }
    const T& front() const { return (*this)[0]; }
    T& back() { return (*this)[m_n - 1]; }
    const T& back() const { return (*this)[m_n - 1]; }

    void push_back(T&& v) { emplace_back() = std::move(v); }
    // Appends a slot and returns it as it is: a stale element, or a default one. The caller
    // assigns what it needs, with no temporary to move through.
    T& emplace_back() {
        if (m_n == m_buf.size()) grow();
        return (*this)[m_n++];
    }
    // Popped elements stay in the array, moved-from or stale, until overwritten.
    void pop_front() {
        m_head = (m_head + 1) & (m_buf.size() - 1);
        --m_n;
    }
    void pop_back() { --m_n; }
    // Inserts before index i (0 <= i <= size()).
    void insert_at(size_t i, T&& v) {
        push_back(std::move(v));
        for (size_t j = m_n - 1; j > i; --j)
            std::swap((*this)[j], (*this)[j - 1]);
    }
    // The first index whose element is not less than `key` under less(element, key).
    template <class K, class Less> size_t lower_bound(const K& key, Less less) const {
        size_t lo = 0, hi = m_n;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (less((*this)[mid], key))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

private:
    void grow() {
        std::vector<T> bigger(m_buf.empty() ? 16 : 2 * m_buf.size());
        for (size_t i = 0; i < m_n; ++i)
            bigger[i] = std::move((*this)[i]);
        m_buf = std::move(bigger);
        m_head = 0;
    }

    std::vector<T> m_buf; // its size is a power of two
    size_t m_head = 0;
    size_t m_n = 0;
};

} // namespace ringsim::models
