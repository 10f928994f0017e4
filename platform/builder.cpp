#include "platform/builder.h"

#include "models/common/rng.h"
#include "models/kernel/perf_abi.h"

namespace ringsim::platform {

using namespace ringsim::models;
using config::Deployment;

namespace {

ExecContext exec_context(config::Context c) {
    switch (c) {
    case config::Context::task: return ExecContext::task;
    case config::Context::softirq: return ExecContext::softirq;
    case config::Context::irq: return ExecContext::irq;
    case config::Context::nmi: return ExecContext::nmi;
    }
    return ExecContext::nmi;
}

RecordKind record_kind(config::RecordKind k) {
    switch (k) {
    case config::RecordKind::sample: return RecordKind::sample;
    case config::RecordKind::switch_: return RecordKind::switch_;
    case config::RecordKind::comm: return RecordKind::comm;
    }
    return RecordKind::sample;
}

ArrivalKind arrival_kind(config::Arrival a) {
    switch (a) {
    case config::Arrival::periodic: return ArrivalKind::periodic;
    case config::Arrival::poisson: return ArrivalKind::poisson;
    case config::Arrival::bursty: return ArrivalKind::bursty;
    }
    return ArrivalKind::periodic;
}

uint64_t sample_type_bits(const std::vector<std::string>& names) {
    uint64_t bits = 0;
    for (const auto& n : names) bits |= perf::sample_bit(n).value_or(0);
    return bits;
}

constexpr uint32_t kWorkloadPid = 1000; // the traced workload's pid; tid = pid + CPU

} // namespace

Platform::Platform(sc_core::sc_module_name name, const config::Scenario& scenario)
    : sc_module(name), m_sc(scenario), m_traced(scenario.traced_cpus),
      m_memory(m_phys, scenario.memory_model, scenario.timing_policy,
               derive_seed(scenario.seed, "memory")) {
    m_task_cpu = m_traced.front();
    for (unsigned c = 0; c < m_sc.cpus; ++c) {
        m_cpus.emplace_back(c);
        // Each CPU is one agent of the ordering engine: kernel and user code on it share
        // its program order.
        const bool consumer = c == m_sc.consumer_cpu;
        EnginePort& port = m_memory.agent("cpu" + std::to_string(c),
                                          consumer ? m_sc.consumer_timing : m_sc.timing);
        // A writer that waited for a late load is still preempted while a higher context
        // that interrupted it runs on this CPU.
        CpuState* cpu = &m_cpus.back();
        port.set_after_wait([cpu] { cpu->resume(); });
        m_ports.push_back(&port);
    }
    build_buffers();
    build_writers();
    m_writers_running = m_writers.size();
    build_consumer();
}

void Platform::build_buffers() {
    // perf record: one mmap per CPU (per-cpu, system-wide), or one for the task
    // (--per-thread). Each is 1 + 2^n pages: the control page, then the data pages (R11).
    std::vector<int> owners;
    if (m_sc.deployment == Deployment::per_thread) owners.push_back(-1);
    else owners.assign(m_traced.begin(), m_traced.end());

    std::vector<CheckedBuffer> checked;
    for (int owner : owners) {
        BufferSlot& b = m_buffers.emplace_back();
        b.name = owner < 0 ? "task" : "cpu" + std::to_string(owner);
        b.cpu = owner;
        PerfBufferParams p;
        p.name = b.name;
        p.page_size = m_sc.page_size;
        p.nr_pages = m_sc.data_pages;
        p.user_page = m_phys.allocate(b.name + ".user_page", m_sc.page_size, m_sc.page_size);
        p.data = m_phys.allocate(b.name + ".data", p.nr_pages * p.page_size, m_sc.page_size);
        p.overwrite = m_sc.overwrite;
        p.backward = m_sc.write_backward;
        p.wakeup_watermark = m_sc.wakeup_watermark;
        p.wakeup_events = m_sc.wakeup_events;
        p.a = m_sc.data_barriers.a;
        p.b = m_sc.data_barriers.b;
        b.rb = std::make_unique<PerfBuffer>(p, b.stats);
        b.wakeup = std::make_unique<PerfWakeup>(
            (b.name + "_wakeup").c_str(),
            sc_core::sc_time(double(m_sc.irq_work_latency_ps), sc_core::SC_PS), b.stats);
        b.rb->set_wakeup_sink(b.wakeup.get());
        const unsigned kernel_cpu = owner < 0 ? m_traced.front() : unsigned(owner);
        b.rb->init_userpage(*m_ports[kernel_cpu]);

        CheckedBuffer cb;
        cb.name = b.name;
        cb.data_size = b.rb->data_size();
        cb.overwrite = p.overwrite;
        cb.backward = p.backward;
        cb.sample_type = sample_type_bits(m_sc.sample_type);
        cb.sample_id_all = m_sc.sample_id_all;
        cb.stats = &b.stats;
        cb.rb = b.rb.get();
        cb.a = m_sc.data_barriers.a;
        cb.b = m_sc.data_barriers.b;
        cb.c = m_sc.data_barriers.c;
        cb.d = m_sc.data_barriers.d;
        cb.push_reader = m_sc.reader == config::Reader::push;
        cb.data = p.data;
        checked.push_back(cb);
    }
    m_checker = std::make_unique<Checker>(std::move(checked), &m_memory.engine());
    for (unsigned i = 0; i < m_buffers.size(); ++i)
        m_buffers[i].rb->set_observer(&m_checker->producer_side(i));
}

WriteTarget Platform::task_target() {
    // The per-thread task runs on the traced CPUs in turn, moving every migrate_every, but
    // only between records: the scheduler never moves it while one of its events is
    // writing (all writers of one buffer run on one CPU at a time, R2).
    PerfBuffer* rb = m_buffers.front().rb.get();
    size_t slot = 0;
    if (m_sc.migrate_every_ps)
        slot = (sc_core::sc_time_stamp().value() / m_sc.migrate_every_ps) % m_traced.size();
    const unsigned wanted = m_traced[slot];
    if (wanted != m_task_cpu && !rb->writer_active()) {
        // The context switch and migration are full barriers: everything the task did on
        // its old CPU performs before anything it does on the new one.
        m_memory.engine().handoff(m_ports[m_task_cpu]->agent(), m_ports[wanted]->agent());
        m_task_cpu = wanted;
    }
    return {&m_cpus[m_task_cpu], m_ports[m_task_cpu], rb};
}

void Platform::build_writers() {
    const uint64_t sample_type = sample_type_bits(m_sc.sample_type);
    uint64_t next_id = 1;
    for (const config::Writer& w : m_sc.writers) {
        RecordWriterParams p;
        p.kind = record_kind(w.record);
        p.context = exec_context(w.context);
        p.arrivals.kind = arrival_kind(w.arrival);
        p.arrivals.rate_hz = w.rate_hz;
        p.arrivals.start = w.start_ps;
        p.arrivals.burst_size = w.burst_size;
        p.arrivals.burst_spacing = w.burst_spacing_ps;
        p.stop = m_sc.duration_ps;
        p.sample_size = w.size;
        p.write_time = w.write_time_ps;
        p.sample_type = sample_type;
        p.sample_id_all = m_sc.sample_id_all;
        p.pid = kWorkloadPid;
        p.period = 100000; // a cycles event with -c 100000

        if (m_sc.deployment == Deployment::per_thread) {
            const std::string name = w.name;
            p.seed = derive_seed(m_sc.seed, "writer." + name);
            p.event_id = next_id++;
            p.tid = kWorkloadPid;
            m_writers.push_back(std::make_unique<RecordWriter>(
                name.c_str(), p, [this] { return task_target(); }, [this] { writer_done(); }));
            continue;
        }
        for (unsigned i = 0; i < m_traced.size(); ++i) {
            const unsigned cpu = m_traced[i];
            const std::string name = w.name + "_cpu" + std::to_string(cpu);
            p.seed = derive_seed(m_sc.seed, "writer." + name);
            p.event_id = next_id++;
            p.tid = kWorkloadPid + cpu;
            WriteTarget t{&m_cpus[cpu], m_ports[cpu], m_buffers[i].rb.get()};
            m_writers.push_back(std::make_unique<RecordWriter>(
                name.c_str(), p, [t] { return t; }, [this] { writer_done(); }));
        }
    }
}

void Platform::writer_done() {
    // perf record learns that the workload exited (SIGCHLD) once its last writer is done.
    if (--m_writers_running == 0) m_consumer->workload_exited();
}

void Platform::build_consumer() {
    PerfConsumerParams p;
    p.reader = m_sc.reader == config::Reader::push ? ReaderKind::push : ReaderKind::libperf;
    p.wakeup_latency = m_sc.wakeup_latency_ps;
    p.per_record_cost = m_sc.per_record_cost_ps;
    p.copy_bandwidth = m_sc.copy_bandwidth;
    p.write_bandwidth = m_sc.write_bandwidth;
    p.poll_timeout = m_sc.poll_timeout_ps;
    p.mmap_flush = m_sc.mmap_flush;
    p.snapshot_every = m_sc.snapshot_every_ps;
    for (const auto& w : m_sc.pauses) p.pauses.push_back({w.at_ps, w.length_ps});
    p.c = m_sc.data_barriers.c;
    p.d = m_sc.data_barriers.d;

    // No MMU yet: the consumer sees the buffers at their kernel addresses.
    std::vector<ConsumerMmap> mmaps;
    for (BufferSlot& b : m_buffers) {
        ConsumerMmap m;
        m.rb = b.rb.get();
        m.wakeup = b.wakeup.get();
        m.stats = &b.stats;
        m.user_page = b.rb->params().user_page;
        m.data = b.rb->params().data;
        m.data_size = b.rb->data_size();
        m.overwrite = b.rb->params().overwrite;
        m.backward = b.rb->params().backward;
        mmaps.push_back(m);
    }
    MemoryPort& mem = *m_ports[m_sc.consumer_cpu];
    m_consumer = std::make_unique<PerfConsumer>("consumer", p, mem, std::move(mmaps), *m_checker,
                                                [this] {
                                                    m_checker->finish();
                                                    m_finished = true;
                                                    sc_core::sc_stop();
                                                });
}

} // namespace ringsim::platform
