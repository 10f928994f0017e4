// A byte string that keeps up to kInline bytes in itself and only longer ones on the heap:
// the checker stores every record it is told about, and most records (a 64-byte sample, a
// 40-byte PERF_RECORD_LOST) then cost no allocation at all (issue 13 §1).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace ringsim::models {

class SmallBytes {
public:
    static constexpr size_t kInline = 64;

    SmallBytes() = default;
    SmallBytes(const SmallBytes& o) { assign(o.data(), o.size()); }
    SmallBytes& operator=(const SmallBytes& o) {
        if (this != &o) assign(o.data(), o.size());
        return *this;
    }
    SmallBytes(SmallBytes&& o) noexcept { *this = std::move(o); }
    SmallBytes& operator=(SmallBytes&& o) noexcept {
        m_n = o.m_n;
        m_cap = o.m_cap; // the capacity goes with its buffer: assign() reuses it up to m_cap
        m_heap = std::move(o.m_heap);
        // The whole inline array, a fixed size the compiler copies in a few moves.
        if (!m_heap) std::memcpy(m_inline, o.m_inline, kInline);
        o.m_n = 0;
        o.m_cap = 0;
        return *this;
    }

    void assign(const uint8_t* p, size_t n) {
        if (n > kInline) {
            if (!m_heap || n > m_cap) {
                m_heap.reset(new uint8_t[n]);
                m_cap = n;
            }
        } else {
            m_heap.reset();
        }
        m_n = n;
        if (n != 0) std::memcpy(data(), p, n); // p may be null then (an empty vector's data())
    }
    size_t size() const { return m_n; }
    // What assign() takes without allocating.
    size_t capacity() const { return m_heap ? m_cap : kInline; }
    bool empty() const { return m_n == 0; }
    uint8_t* data() { return m_heap ? m_heap.get() : m_inline; }
    const uint8_t* data() const { return m_heap ? m_heap.get() : m_inline; }
    uint8_t operator[](size_t i) const { return data()[i]; }

private:
    size_t m_n = 0;
    size_t m_cap = 0; // of m_heap
    std::unique_ptr<uint8_t[]> m_heap;
    uint8_t m_inline[kInline] = {};
};

} // namespace ringsim::models
