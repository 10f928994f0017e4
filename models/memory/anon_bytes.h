// Zeroed bytes that cost nothing until touched: an anonymous private mapping, so a 4 GiB
// simulated buffer of which a run writes 1 MB takes 1 MB of the host's memory (issue 13 §2),
// where a std::vector would zero-fill, and fault in, all of it up front.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringsim::models {

class AnonBytes {
public:
    AnonBytes() = default;
    // Maps `size` zeroed bytes; throws ModelError naming the size if the host refuses.
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

private:
    uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
};

} // namespace ringsim::models
