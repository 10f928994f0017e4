// The one place that knows ringsim's topology: from a validated Scenario it lays out
// simulated memory, creates the CPUs, ring buffers, wakeups, record writers, the consumer
// and the checker, and wires them. Models receive complete parameter structs only.
#pragma once

#include "models/check/checker.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/perf_wakeup.h"
#include "models/kernel/record_writer.h"
#include "models/memory/engine_port.h"
#include "models/user/perf_consumer.h"
#include "platform/config/scenario.h"

#include <deque>
#include <memory>
#include <systemc>
#include <vector>

namespace ringsim::platform {

// One mapped ring buffer and everything attached to it.
struct BufferSlot {
    std::string name;             // "cpu2", or "task" for a per-thread buffer
    int cpu = -1;                 // the CPU it belongs to; -1 for per-thread
    models::BufferStats stats;
    std::unique_ptr<models::PerfBuffer> rb;
    std::unique_ptr<models::PerfWakeup> wakeup;
};

class Platform : public sc_core::sc_module {
public:
    Platform(sc_core::sc_module_name name, const config::Scenario& scenario);

    const std::deque<BufferSlot>& buffers() const { return m_buffers; }
    const models::Checker& checker() const { return *m_checker; }
    const models::PerfConsumer& consumer() const { return *m_consumer; }
    models::OrderingEngine& engine() { return m_memory.engine(); }
    bool finished() const { return m_finished; }

private:
    models::WriteTarget task_target();
    void build_buffers();
    void build_writers();
    void build_consumer();

    const config::Scenario& m_sc;
    std::vector<unsigned> m_traced;          // the traced CPUs
    models::PhysicalMemory m_phys;
    models::MemorySystem m_memory;
    std::deque<models::CpuState> m_cpus;
    std::vector<models::EnginePort*> m_ports; // one agent per CPU
    unsigned m_task_cpu = 0;                  // per-thread: where the task runs now
    std::deque<BufferSlot> m_buffers;
    std::vector<std::unique_ptr<models::RecordWriter>> m_writers;
    std::unique_ptr<models::Checker> m_checker;
    std::unique_ptr<models::PerfConsumer> m_consumer;
    bool m_finished = false;
    size_t m_writers_running = 0;
    void writer_done();
};

} // namespace ringsim::platform
