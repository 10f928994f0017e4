// A double-ended queue in one array whose size is a power of two: an element is one index
// and one mask away, and a scan is as cheap as over a vector. For the ordering engine's
// short queues, touched on every access (an agent's recent operations, the stores not yet
// merged into memory, the loads not yet read), where RingDeque's chunks cost an extra
// indirection per element and std::map a tree per operation (issue 13 §1).
//
// Slots are reused, not destroyed: a popped or erased element stays in the array, stale,
// until emplace_back() or emplace_at() hands it out again with whatever capacity its
// vectors kept. The caller sets every field it reads. The array doubles when full (moving
// the live elements); it never shrinks, so it holds as many slots as the queue ever held
// at once.
#pragma once

#include "models/common/index_bisect.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace ringsim::models {

template <class T> class FlatRing {
public:
    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }
    T& operator[](size_t i) { return m_v[(m_first + i) & m_mask]; }
    const T& operator[](size_t i) const { return m_v[(m_first + i) & m_mask]; }
    T& front() { return (*this)[0]; }
    const T& front() const { return (*this)[0]; }
    T& back() { return (*this)[m_n - 1]; }
    const T& back() const { return (*this)[m_n - 1]; }

    // A slot at the back: a stale element or a default-constructed one.
    T& emplace_back() {
        if (m_n == m_v.size()) grow();
        ++m_n;
        return back();
    }
    // A slot before index i (0 <= i <= size()), the elements from i on moved one up.
    T& emplace_at(size_t i) {
        emplace_back();
        for (size_t j = m_n - 1; j > i; --j)
            std::swap((*this)[j], (*this)[j - 1]);
        return (*this)[i];
    }
    void pop_front() {
        m_first = (m_first + 1) & m_mask;
        --m_n;
    }
    // Removes index i; the elements after it move one down, and it becomes the stale slot
    // past the back.
    void erase_at(size_t i) {
        for (size_t j = i; j + 1 < m_n; ++j)
            std::swap((*this)[j], (*this)[j + 1]);
        --m_n;
    }
    // The first index whose element is not less than `key` under less(element, key).
    template <class K, class Less> size_t lower_bound(const K& key, Less less) const {
        return lower_bound_index(*this, key, less);
    }

private:
    // Out of line: emplace_back() is inlined into every remember() and add_load(), and the
    // rare growth inlined with it made each of them save and restore more registers.
    [[gnu::noinline]] void grow() {
        std::vector<T> bigger(m_v.empty() ? 8 : 2 * m_v.size());
        for (size_t k = 0; k < m_n; ++k)
            bigger[k] = std::move((*this)[k]);
        m_v.swap(bigger);
        m_mask = m_v.size() - 1;
        m_first = 0;
    }

    std::vector<T> m_v; // a power of two in size, or empty
    size_t m_mask = 0;  // m_v.size() - 1, kept: every element access needs it
    size_t m_first = 0; // the array index of element 0
    size_t m_n = 0;
};

} // namespace ringsim::models
