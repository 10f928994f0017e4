// A double-ended queue for the checker's and the engine's FIFOs: push and pop at both ends,
// indexing in constant time, and no allocation in steady state. Elements live in chunks
// of kChunk; a chunk emptied at either end goes to a small free list for the next push, so
// memory follows the number of elements, without the 2x slack and the copy of a doubling
// array, and without std::deque's allocation every 512 bytes (every other push for
// elements of a few hundred bytes; issue 13 §1-2). Insertion in the middle is for the rare
// out-of-order element and costs a shift.
#pragma once

#include "models/common/index_bisect.h"

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace ringsim::models {

template <class T> class RingDeque {
public:
    static constexpr size_t kChunk = 64;

    RingDeque() = default;
    RingDeque(RingDeque&&) noexcept = default;
    RingDeque& operator=(RingDeque&&) noexcept = default;

    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }
    T& operator[](size_t i) { return at(m_off + i); }
    const T& operator[](size_t i) const { return const_cast<RingDeque*>(this)->at(m_off + i); }
    T& front() { return (*this)[0]; }
    const T& front() const { return (*this)[0]; }
    T& back() { return (*this)[m_n - 1]; }
    const T& back() const { return (*this)[m_n - 1]; }

    void push_back(T&& v) { emplace_back() = std::move(v); }
    // Appends a slot and returns it as it is: a stale element, or a default one. The caller
    // assigns what it needs, with no temporary to move through. Popped elements stay, moved
    // from or stale, until a push reuses them.
    T& emplace_back() {
        if (m_off + m_n == m_used * kChunk) add_chunk();
        ++m_n;
        return back();
    }
    void pop_front() {
        if (++m_off == kChunk) drop_first_chunk();
        if (--m_n == 0) reset();
    }
    void pop_back() {
        if (--m_n == 0) {
            reset();
            return;
        }
        if (m_off + m_n <= (m_used - 1) * kChunk) drop_last_chunks(m_used - 1);
    }
    // Inserts before index i (0 <= i <= size()).
    void insert_at(size_t i, T&& v) {
        push_back(std::move(v));
        for (size_t j = m_n - 1; j > i; --j)
            std::swap((*this)[j], (*this)[j - 1]);
    }
    // The first index whose element is not less than `key` under less(element, key).
    template <class K, class Less> size_t lower_bound(const K& key, Less less) const {
        return lower_bound_index(*this, key, less);
    }

private:
    using Chunk = std::unique_ptr<T[]>;
    static constexpr size_t kFreeKept = 4; // chunks kept for reuse; more are freed

    T& at(size_t c) { return m_ring[(m_first + c / kChunk) & m_mask][c % kChunk]; }

    void add_chunk() {
        if (m_used == m_ring.size()) { // the ring of chunk pointers is full: double it
            std::vector<Chunk> bigger(m_ring.empty() ? 4 : 2 * m_ring.size());
            for (size_t k = 0; k < m_used; ++k)
                bigger[k] = std::move(m_ring[(m_first + k) & m_mask]);
            m_ring = std::move(bigger);
            m_mask = m_ring.size() - 1;
            m_first = 0;
        }
        Chunk& slot = m_ring[(m_first + m_used) & m_mask];
        if (!m_free.empty()) {
            slot = std::move(m_free.back());
            m_free.pop_back();
        } else {
            slot.reset(new T[kChunk]);
        }
        ++m_used;
    }
    void release(size_t ring_index) {
        Chunk& c = m_ring[ring_index];
        if (m_free.size() < kFreeKept) m_free.push_back(std::move(c));
        c.reset();
    }
    // Empty: keep the first chunk, start over at its beginning.
    void reset() {
        if (m_used > 1) drop_last_chunks(1);
        m_off = 0;
    }
    // The pops' rare steps, out of line: a chunk freed destroys its elements, whose inlined
    // destructors (an entry's buffers) would have the pops inlined nowhere.
    [[gnu::noinline]] void drop_first_chunk() {
        release(m_first);
        m_first = (m_first + 1) & m_mask;
        --m_used;
        m_off = 0;
    }
    [[gnu::noinline]] void drop_last_chunks(size_t keep) {
        while (m_used > keep) {
            release((m_first + m_used - 1) & m_mask);
            --m_used;
        }
    }

    std::vector<Chunk> m_ring; // chunk pointers, a ring whose size is a power of two
    size_t m_mask = 0;         // m_ring.size() - 1, kept: every element access needs it
    size_t m_first = 0;        // the ring index of the first chunk in use
    size_t m_used = 0;         // chunks in use, from m_first on
    size_t m_off = 0;          // the first element's index within the first chunk
    size_t m_n = 0;
    std::vector<Chunk> m_free;
};

} // namespace ringsim::models
