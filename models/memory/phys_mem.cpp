#include "models/memory/phys_mem.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ringsim::models {

Addr PhysicalMemory::allocate(const std::string& name, uint64_t size, uint64_t align) {
    const Addr base = (m_next + align - 1) & ~(align - 1);
    m_regions.push_back(Region{name, base, AnonBytes(size)});
    m_next = base + size;
    return base;
}

const PhysicalMemory::Region& PhysicalMemory::region_of(Addr addr, uint64_t n) const {
    if (m_last < m_regions.size()) {
        const Region& r = m_regions[m_last];
        if (addr >= r.base && addr + n <= r.base + r.bytes.size()) return r;
    }
    auto it = std::upper_bound(m_regions.begin(), m_regions.end(), addr,
                               [](Addr a, const Region& r) { return a < r.base; });
    if (it != m_regions.begin()) {
        const Region& r = *std::prev(it);
        if (addr + n <= r.base + r.bytes.size()) {
            m_last = size_t(std::prev(it) - m_regions.begin());
            return r;
        }
    }
    std::ostringstream msg;
    msg << "memory access [0x" << std::hex << addr << ", 0x" << addr + n
        << ") is outside every allocated region";
    throw ModelError(msg.str());
}

void PhysicalMemory::read(Addr addr, uint8_t* dst, uint64_t n) const {
    const Region& r = region_of(addr, n);
    std::memcpy(dst, r.bytes.data() + (addr - r.base), n);
}

void PhysicalMemory::write(Addr addr, const uint8_t* src, uint64_t n) {
    Region& r = const_cast<Region&>(region_of(addr, n));
    std::memcpy(r.bytes.data() + (addr - r.base), src, n);
}

uint64_t PhysicalMemory::read_u64(Addr addr) const {
    uint64_t v;
    read(addr, reinterpret_cast<uint8_t*>(&v), sizeof v);
    return v;
}

} // namespace ringsim::models
