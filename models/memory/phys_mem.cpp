#include "models/memory/phys_mem.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ringsim::models {

Addr PhysicalMemory::allocate(const std::string& name, uint64_t size, uint64_t align) {
    const Addr base = (m_next + align - 1) & ~(align - 1);
    m_regions.push_back(Region{name, AnonBytes(size)});
    m_spans.push_back(Span{base, base + size, m_regions.back().bytes.data()});
    m_next = base + size;
    return base;
}

uint8_t* PhysicalMemory::host_searched(Addr addr, uint64_t n) const {
    auto it = std::upper_bound(m_spans.begin(), m_spans.end(), addr,
                               [](Addr a, const Span& s) { return a < s.base; });
    if (it != m_spans.begin()) {
        const Span& s = *std::prev(it);
        if (addr + n <= s.end) {
            m_hints[(addr >> 12) % kHints] = {addr >> 12, size_t(std::prev(it) - m_spans.begin())};
            return s.data + (addr - s.base);
        }
    }
    std::ostringstream msg;
    msg << "memory access [0x" << std::hex << addr << ", 0x" << addr + n
        << ") is outside every allocated region";
    throw ModelError(msg.str());
}

uint64_t PhysicalMemory::read_u64(Addr addr) const {
    uint64_t v;
    read(addr, reinterpret_cast<uint8_t*>(&v), sizeof v);
    return v;
}

} // namespace ringsim::models
