// Reading a fuzz input as a sequence of small fields, the bytes it lacks read as 0, so that
// every input (even an empty one) means something. For the targets of tests/fuzz.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ringsim::fuzz {

// Where a target leaves a value computed from what it decoded.
inline volatile uint64_t g_sink = 0;

class Input {
public:
    Input(const uint8_t* data, size_t size) : m_p(data), m_n(size) {}

    bool empty() const { return m_n == 0; }
    size_t left() const { return m_n; }

    uint8_t u8() { return uint8_t(take(1)); }
    uint16_t u16() { return uint16_t(take(2)); }
    uint32_t u32() { return uint32_t(take(4)); }
    uint64_t u64() { return take(8); }

    // Up to n bytes (fewer at the end); `got` says how many.
    const uint8_t* bytes(size_t n, size_t& got) {
        got = n < m_n ? n : m_n;
        const uint8_t* p = m_p;
        m_p += got;
        m_n -= got;
        return p;
    }

private:
    uint64_t take(size_t k) { // little-endian, missing bytes 0
        uint64_t v = 0;
        for (size_t i = 0; i < k && m_n > 0; ++i, ++m_p, --m_n)
            v |= uint64_t(*m_p) << (8 * i);
        return v;
    }

    const uint8_t* m_p;
    size_t m_n;
};

} // namespace ringsim::fuzz
