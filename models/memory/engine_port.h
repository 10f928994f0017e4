// An agent's MemoryPort onto the ordering engine, in simulated time: operations issue at
// sim_now(); reading a load that has not performed yet waits until it has (a pending
// value whose use waits, MEMORY-MODEL.md). Outside a running simulation time is 0, which
// lets pure C++ tests drive a port under the `sc` model.
#pragma once

#include "models/common/sim_clock.h"
#include "models/common/sim_wait.h"
#include "models/memory/ordering_engine.h"

#include <functional>
#include <systemc>

namespace ringsim::models {

class EnginePort final : public MemoryPort {
public:
    EnginePort(OrderingEngine& engine, unsigned agent) : m_engine(engine), m_agent(agent) {}
    unsigned agent() const { return m_agent; }
    OrderingEngine& engine() { return m_engine; }

    LoadTicket issue_load(Addr addr, uint64_t n, bool acquire, Barrier label) override {
        return m_engine.load(m_agent, now(), addr, n, acquire, label);
    }
    LoadTicket issue_copy(Addr addr, uint64_t n, Picos start, Picos span) override {
        return m_engine.load_copy(m_agent, now(), addr, n, start, span);
    }
    void read(const LoadTicket& t, uint8_t* dst, std::vector<ByteSource>* sources) override {
        wait_for(t);
        m_engine.read(t, now(), dst, sources);
    }
    void wait_for(const LoadTicket& t) override {
        if (t.perform <= now()) return;
        sim_wait(t.perform - now());
        if (m_after_wait) m_after_wait();
    }
    // Runs after the agent's thread waited for a late load: the CPU model uses it to keep a
    // preempted context from running on while its interrupter is still busy.
    void set_after_wait(std::function<void()> f) { m_after_wait = std::move(f); }
    uint64_t store_bytes(Addr addr, const uint8_t* src, uint64_t n, bool release,
                         Barrier label) override {
        return m_engine.store(m_agent, now(), addr, src, n, release, label);
    }
    void fence(Fence kind, Barrier label) override { m_engine.fence(m_agent, now(), kind, label); }
    void ctrl_dep(const LoadTicket& t, Barrier) override { m_engine.ctrl_dep(m_agent, t); }
    bool cancel_store(uint64_t seq, const LoadTicket& branch) override {
        return m_engine.cancel_store(seq, branch.perform);
    }

private:
    static Picos now() { return sim_now(); }
    OrderingEngine& m_engine;
    unsigned m_agent;
    std::function<void()> m_after_wait;
};

// Every agent's port, by name, created on first use.
class MemorySystem {
public:
    MemorySystem(PhysicalMemory& mem, MemoryModel model, TimingPolicy policy, uint64_t seed)
        : m_engine(mem, model, policy, seed) {}
    OrderingEngine& engine() { return m_engine; }
    EnginePort& agent(const std::string& name, const TimingBounds& bounds = {}) {
        for (auto& p : m_ports)
            if (m_engine.agent_name(p.agent()) == name) return p;
        return m_ports.emplace_back(m_engine, m_engine.add_agent(name, bounds));
    }

private:
    OrderingEngine m_engine;
    std::deque<EnginePort> m_ports;
};

} // namespace ringsim::models
