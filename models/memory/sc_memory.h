// Sequentially consistent memory: every operation of every agent performs at the moment
// its agent issues it, in program order. Fences and dependencies order nothing that is not
// already ordered. This is the `sc` model of MEMORY-MODEL.md; the weak engines put their
// own MemoryPort behind the same interface.
#pragma once

#include "models/memory/memory_port.h"
#include "models/memory/phys_mem.h"

#include <deque>
#include <string>

namespace ringsim::models {

struct AgentStats {
    uint64_t loads = 0, stores = 0, fences = 0;
    uint64_t bytes_loaded = 0, bytes_stored = 0;
};

class ScMemory {
public:
    explicit ScMemory(PhysicalMemory& mem) : m_mem(mem) {}

    // The port of agent `name`; ports live as long as this object.
    MemoryPort& agent(const std::string& name);

private:
    class Port;
    PhysicalMemory& m_mem;
    std::deque<Port> m_ports;
};

class ScMemory::Port final : public MemoryPort {
public:
    Port(PhysicalMemory& mem, std::string name) : m_mem(mem), m_name(std::move(name)) {}
    const std::string& name() const { return m_name; }
    const AgentStats& stats() const { return m_stats; }

    uint64_t load(Addr addr, unsigned size) override;
    void store(Addr addr, uint64_t value, unsigned size) override;
    void load_bytes(Addr addr, uint8_t* dst, uint64_t n) override;
    void store_bytes(Addr addr, const uint8_t* src, uint64_t n) override;
    void fence(Fence, Barrier) override { ++m_stats.fences; }
    uint64_t load_acquire(Addr addr, unsigned size, Barrier) override { return load(addr, size); }
    void store_release(Addr addr, uint64_t value, unsigned size, Barrier) override {
        store(addr, value, size);
    }
    uint64_t ctrl_dep(uint64_t value, Barrier) override { return value; }

private:
    PhysicalMemory& m_mem;
    std::string m_name;
    AgentStats m_stats;
};

} // namespace ringsim::models
