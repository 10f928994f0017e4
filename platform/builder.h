// The one place that knows ringsim's topology: from a validated Scenario it lays out
// simulated memory, creates the CPUs, ring buffers, wakeups, record writers, the consumer
// and the checker, and wires them. Models receive complete parameter structs only.
#pragma once

#include "models/check/aux_checker.h"
#include "models/check/checker.h"
#include "models/common/stat_registry.h"
#include "models/coresight/etm_source.h"
#include "models/coresight/etr_sink.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/cs_etm_event.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/perf_wakeup.h"
#include "models/kernel/record_writer.h"
#include "models/kernel/scheduler.h"
#include "models/memory/engine_port.h"
#include "models/memory/mmu.h"
#include "models/user/auxtrace_reader.h"
#include "models/user/perf_consumer.h"
#include "platform/config/scenario.h"
#include "platform/export/perf_data_session.h"
#include "platform/export/perf_data_writer.h"
#include "platform/session_end.h"

#include <deque>
#include <memory>
#include <systemc>
#include <vector>

namespace ringsim::platform {

// One mapped ring buffer and everything attached to it.
struct BufferSlot {
    std::string name; // "cpu2", or "task" for a per-thread buffer
    int cpu = -1;     // the CPU it belongs to; -1 for per-thread
    models::BufferStats stats;
    models::MmuCounters mmu; // the perf tool's MMU on its mappings of this buffer
    std::unique_ptr<models::PerfBuffer> rb;
    std::unique_ptr<models::PerfWakeup> wakeup;
};

class Platform : public sc_core::sc_module {
public:
    Platform(sc_core::sc_module_name name, const config::Scenario& scenario);

    const std::deque<BufferSlot>& buffers() const { return m_buffers; }
    const models::Checker& checker() const { return *m_checker; }
    const models::PerfConsumer& consumer() const { return *m_consumer; }
    // A listener of the consumer besides the checkers (a waveform writer), before the run.
    void add_consumer_observer(models::ConsumerObserver* o) { m_consumer->add_observer(o); }
    void remove_consumer_observer(models::ConsumerObserver* o) { m_consumer->remove_observer(o); }
    // The ETR sinks (none without AUX), for listeners of their registers.
    const std::vector<std::unique_ptr<models::coresight::EtrSink>>& sinks() const {
        return m_sinks;
    }
    models::OrderingEngine& engine() { return m_memory.engine(); }
    // The consumer's MMU port, for a timeline that shows its faults and walks.
    models::MmuPort& consumer_mmu() { return *m_tool_port; }
    bool finished() const { return m_end.finished(); }
    // After a run stopped early (SIGINT, SIGTERM): what the consumer's last pass would have
    // done, without it: the checkers close their books (records still in flight counted as
    // such), perf.data gets its closing records.
    void close_books_early();
    bool aux_enabled() const { return m_sc.aux.enabled; }
    bool aux_snapshot() const { return m_sc.aux.snapshot; }
    // The model instances whose statistics (stat_paths.h) a buffer's object holds, and
    // those the total holds: every instance, each counted once.
    models::StatInstances buffer_stat_instances(unsigned i) const;
    models::StatInstances total_stat_instances() const;
    const models::AuxChecker* aux_checker() const { return m_aux_checker.get(); }
    // What perf record would write; open() it before the run to get the file.
    PerfDataWriter& perf_data() { return *m_perf_data; }
    const PerfDataWriter& perf_data() const { return *m_perf_data; }
    // Simulated memory as the last performed stores left it (for samplers that must not
    // issue memory operations).
    const models::PhysicalMemory& phys() const { return m_phys; }
    // The ETMs whose trace buffer `buffer`'s event records: its CPU's, or every traced
    // CPU's for a per-thread buffer; none without an AUX area.
    std::vector<const models::coresight::EtmSource*> aux_sources(unsigned buffer) const;

private:
    void build_buffers();
    void build_writers();
    void build_consumer();
    void build_aux();
    void build_aux_reader();
    void build_perf_data();
    // The addresses of n pages of physical memory from base.
    std::vector<models::Addr> pages(models::Addr base, uint64_t n) const;

    const config::Scenario& m_sc;
    std::vector<unsigned> m_traced; // the traced CPUs
    models::PhysicalMemory m_phys;
    models::MemorySystem m_memory;
    std::deque<models::CpuState> m_cpus;
    std::vector<models::EnginePort*> m_ports; // one agent per CPU
    std::unique_ptr<models::Scheduler> m_scheduler;
    std::deque<BufferSlot> m_buffers;
    std::vector<std::unique_ptr<models::RecordWriter>> m_writers;
    std::unique_ptr<models::Checker> m_checker;
    std::unique_ptr<models::PerfConsumer> m_consumer;
    // The perf tool's process: its address space and its CPU's view through the MMU.
    std::unique_ptr<models::AddressSpace> m_tool_space;
    std::unique_ptr<models::MmuPort> m_tool_port;
    struct ToolMapping {
        models::Addr user_page = 0, data = 0, aux = 0;
        uint64_t aux_offset = 0;
    };
    std::vector<ToolMapping> m_tool_maps; // by buffer
    void map_tool();
    // The AUX path (session.aux.enabled).
    std::unique_ptr<models::coresight::TraceRate> m_rate;
    std::deque<models::coresight::EtmSource> m_sources;
    std::vector<models::coresight::EtmSource*> m_source_of_cpu;
    std::deque<models::PerfAux> m_auxes;
    std::vector<models::Addr> m_aux_bases;
    std::vector<std::unique_ptr<models::coresight::EtrSink>> m_sinks;
    std::unique_ptr<models::AuxChecker> m_aux_checker;
    std::unique_ptr<models::CsEtmDriver> m_driver;
    std::vector<std::unique_ptr<models::CsEtmEvent>> m_events;
    std::unique_ptr<models::AuxtraceReader> m_aux_reader;
    // perf.data: the events perf record would have opened, and the file's writer.
    std::vector<PerfDataInputs::Event> m_perf_events;
    std::vector<uint64_t> m_cs_etm_ids;
    std::unique_ptr<PerfDataWriter> m_perf_data;
    SessionEnd m_end;
    size_t m_writers_running = 0;
    void writer_done();
};

} // namespace ringsim::platform
