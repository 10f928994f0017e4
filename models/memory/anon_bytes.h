// Zeroed bytes that cost nothing until touched: an anonymous private mapping, so that a 4 GiB
// simulated buffer of which a run writes 1 MB takes 1 MB of the host's memory (issue 13 §2),
// where a std::vector would zero-fill, and fault in, all of it up front. A small region (a
// page or a few: a user page, a one-page buffer) comes from the heap, zeroed: a mapping would
// cost two system calls and a page fault each, which a short run (a sweep's point in a
// worker, whose heap keeps what the last run freed) pays for every region it makes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringsim::models {

class AnonBytes {
public:
    AnonBytes() = default;
    // `size` zeroed bytes, mapped (or from the heap, up to kHeapMax); throws ModelError naming
    // the size if the host refuses.
    explicit AnonBytes(uint64_t size);
    ~AnonBytes();
    AnonBytes(AnonBytes&& o) noexcept : m_data(o.m_data), m_size(o.m_size) {
        o.m_data = nullptr;
        o.m_size = 0;
    }
    AnonBytes& operator=(AnonBytes&& o) noexcept;
    AnonBytes(const AnonBytes&) = delete;
    AnonBytes& operator=(const AnonBytes&) = delete;

    uint8_t* data() { return m_data; }
    const uint8_t* data() const { return m_data; }
    uint64_t size() const { return m_size; }

    // Up to this size, a region comes from the heap.
    static constexpr uint64_t kHeapMax = 64 * 1024;

private:
    void release();
    uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
};

} // namespace ringsim::models
