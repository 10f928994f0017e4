#include "models/memory/sc_memory.h"

namespace ringsim::models {

MemoryPort& ScMemory::agent(const std::string& name) {
    for (auto& p : m_ports)
        if (p.name() == name) return p;
    return m_ports.emplace_back(m_mem, name);
}

uint64_t ScMemory::Port::load(Addr addr, unsigned size) {
    uint64_t v = 0;
    m_mem.read(addr, reinterpret_cast<uint8_t*>(&v), size);
    ++m_stats.loads;
    m_stats.bytes_loaded += size;
    return v;
}

void ScMemory::Port::store(Addr addr, uint64_t value, unsigned size) {
    m_mem.write(addr, reinterpret_cast<const uint8_t*>(&value), size);
    ++m_stats.stores;
    m_stats.bytes_stored += size;
}

void ScMemory::Port::load_bytes(Addr addr, uint8_t* dst, uint64_t n) {
    m_mem.read(addr, dst, n);
    ++m_stats.loads;
    m_stats.bytes_loaded += n;
}

void ScMemory::Port::store_bytes(Addr addr, const uint8_t* src, uint64_t n) {
    m_mem.write(addr, src, n);
    ++m_stats.stores;
    m_stats.bytes_stored += n;
}

} // namespace ringsim::models
