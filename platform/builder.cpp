#include "platform/builder.h"

#include "models/common/rng.h"
#include "models/common/sim_wait.h"
#include "models/kernel/etr_alloc.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_mmap.h"
#include "models/kernel/sched_weight.h"
#include "models/user/readers.h"

namespace ringsim::platform {

using namespace ringsim::models;
using config::Deployment;

namespace {

uint64_t sample_type_bits(const std::vector<std::string>& names) {
    uint64_t bits = 0;
    for (const auto& n : names)
        bits |= perf::sample_bit(n).value_or(0);
    return bits;
}

constexpr uint32_t kWorkloadPid = 1000; // the traced workload's pid; tid = pid + CPU

} // namespace

Platform::Platform(sc_core::sc_module_name name, const config::Scenario& scenario)
    : sc_module(name), m_sc(scenario), m_traced(scenario.traced_cpus),
      m_memory(m_phys, scenario.memory_model, scenario.timing_policy,
               derive_seed(scenario.seed, "memory")) {
    std::vector<SchedCpu> sched_cpus;
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
        sched_cpus.push_back({cpu, &port});
    }
    SchedulerParams sp;
    sp.traced = m_traced;
    sp.per_thread = m_sc.deployment == Deployment::per_thread;
    sp.system_wide = m_sc.deployment == Deployment::system_wide;
    sp.migrate_every = m_sc.migrate_every_ps;
    sp.switch_every = m_sc.switch_every_ps;
    sp.switch_out = m_sc.switch_out_ps;
    sp.seed = m_sc.seed;
    m_scheduler = std::make_unique<Scheduler>(sp, std::move(sched_cpus));
    build_buffers();
    if (m_sc.aux.enabled) build_aux();
    build_writers();
    m_writers_running = m_writers.size();
    map_tool();
    build_consumer();
    if (m_sc.aux.enabled) build_aux_reader();
    build_perf_data();
    // The run ends when the tool is done, after the checkers closed their books and
    // perf.data is written.
    if (m_aux_checker) m_consumer->add_observer(m_aux_checker.get());
    m_consumer->add_observer(m_perf_data.get());
    m_consumer->add_observer(&m_end); // last: it stops the simulation
    // After every module's processes: they keep the numbers they had when the queue was made
    // at the first wait.
    models::sim_prepare();
}

std::vector<Addr> Platform::pages(Addr base, uint64_t n) const {
    std::vector<Addr> v;
    for (uint64_t i = 0; i < n; ++i)
        v.push_back(base + i * m_sc.page_size);
    return v;
}

void Platform::build_perf_data() {
    PerfDataInputs in;
    in.events = m_perf_events;
    in.cs_etm_ids = m_cs_etm_ids;
    if (m_sc.aux.enabled)
        for (unsigned cpu : m_traced)
            in.etms.push_back({cpu, m_source_of_cpu[cpu]->trace_id()});
    // auxtrace_mmap_params__set_idx: a per-CPU map names its CPU and no thread, a
    // per-thread map its thread and no CPU.
    for (const BufferSlot& b : m_buffers)
        in.mmaps.push_back(b.cpu < 0 ? PerfDataSession::Mmap{-1, int32_t(kWorkloadPid)}
                                     : PerfDataSession::Mmap{b.cpu, -1});
    in.snapshot = m_sc.aux.snapshot;
    in.write_backward = m_sc.write_backward;
    in.sample_type = sample_type_bits(m_sc.sample_type);
    in.sample_id_all = m_sc.sample_id_all;
    in.nr_cpus = m_sc.cpus;
    in.seed = derive_seed(m_sc.seed, "perf_data");
    PerfDataSession s = make_perf_data_session(in);
    // event->lost_samples, which perf reads with PERF_FORMAT_LOST at exit.
    s.lost_samples_of = [this](uint64_t id) {
        uint64_t lost = 0;
        for (const BufferSlot& b : m_buffers) {
            const auto& m = b.rb->lost_samples();
            if (const auto it = m.find(id); it != m.end()) lost += it->second;
        }
        return lost;
    };
    m_perf_data = std::make_unique<PerfDataWriter>(std::move(s));
    if (m_aux_reader) m_aux_reader->add_observer(m_perf_data.get());
}

void Platform::build_buffers() {
    // perf record: one mmap per CPU (per-cpu, system-wide), or one for the task
    // (--per-thread). Each is 1 + 2^n pages: the control page, then the data pages (R11).
    std::vector<int> owners;
    if (m_sc.deployment == Deployment::per_thread)
        owners.push_back(-1);
    else
        owners.assign(m_traced.begin(), m_traced.end());

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
        b.wakeup = std::make_unique<PerfWakeup>((b.name + "_wakeup").c_str(),
                                                m_sc.irq_work_latency_ps, b.stats);
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
        // Overwrite maps are read with perf_mmap__push whatever the reader (C4, C5).
        cb.push_reader = m_sc.reader == config::Reader::push || p.overwrite;
        const models::ReaderTraits& reader = models::reader_traits(m_sc.reader);
        if (reader.c_fix && !p.overwrite) cb.c_fix = reader.c_fix;
        if (reader.d_fix && !p.overwrite) cb.d_fix = reader.d_fix;
        cb.data = p.data;
        checked.push_back(cb);
    }
    m_checker = std::make_unique<Checker>(std::move(checked), &m_memory.engine());
    for (unsigned i = 0; i < m_buffers.size(); ++i)
        m_buffers[i].rb->set_observer(&m_checker->producer_side(i));
}

void Platform::build_writers() {
    // The per-thread task moves only when neither a record nor its cs_etm event pins it.
    if (m_sc.deployment == Deployment::per_thread)
        m_scheduler->pin(m_buffers.front().rb.get(),
                         m_events.empty() ? nullptr : m_events.front().get());
    const uint64_t sample_type = sample_type_bits(m_sc.sample_type);
    uint64_t next_id = 1;
    for (const config::Writer& w : m_sc.writers) {
        RecordWriterParams p;
        p.kind = w.record;
        p.context = w.context;
        p.arrivals.kind = w.arrival;
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
        // cpu-clock writes its attr's sample_period, in ns (hw.last_period), into PERIOD (R12).
        const uint64_t period_ns = w.cpu_clock ? w.period_ps / 1000 : kSamplePeriod;
        p.period = period_ns;

        m_perf_events.push_back(
            {w.name,
             w.record,
             {},
             w.record == RecordKind::sample && w.size > perf::sample_fixed_size(sample_type),
             w.cpu_clock,
             w.cpu_clock ? period_ns : 0});
        if (m_sc.deployment == Deployment::per_thread) {
            const std::string name = w.name;
            p.seed = derive_seed(m_sc.seed, "writer." + name);
            p.event_id = next_id++;
            m_perf_events.back().ids.push_back(p.event_id);
            p.tid = kWorkloadPid;
            m_writers.push_back(
                std::make_unique<RecordWriter>(name.c_str(), p, *m_scheduler, kPerThreadTask,
                                               *m_buffers.front().rb, [this] { writer_done(); }));
            continue;
        }
        for (unsigned i = 0; i < m_traced.size(); ++i) {
            const unsigned cpu = m_traced[i];
            const std::string name = w.name + "_cpu" + std::to_string(cpu);
            p.seed = derive_seed(m_sc.seed, "writer." + name);
            p.event_id = next_id++;
            m_perf_events.back().ids.push_back(p.event_id);
            p.tid = kWorkloadPid + cpu;
            m_writers.push_back(std::make_unique<RecordWriter>(name.c_str(), p, *m_scheduler,
                                                               int(cpu), *m_buffers[i].rb,
                                                               [this] { writer_done(); }));
        }
    }
}

void Platform::close_books_early() {
    // The consumer's observers but the session's end (the simulation is already stopped),
    // in the order they were added.
    m_checker->finish();
    if (m_aux_checker) {
        m_aux_checker->set_stopped_early();
        m_aux_checker->finish();
    }
    m_perf_data->on_finished();
}

void Platform::writer_done() {
    // perf record learns that the workload exited (SIGCHLD) once its last writer is done.
    if (--m_writers_running == 0) m_consumer->workload_exited();
}

void Platform::map_tool() {
    // perf record's process maps each buffer (and its AUX area) into its own address space,
    // checked as perf_mmap checks them (R11, M3); it reads them through its CPU's MMU.
    MmuParams mp;
    mp.page_size = m_sc.page_size;
    mp.policy = m_sc.mapping;
    mp.tlb_entries = m_sc.mmu.tlb_entries;
    mp.tlb_hit = m_sc.mmu.tlb_hit_ps;
    mp.tlb_miss = m_sc.mmu.tlb_miss_ps;
    mp.page_walk = m_sc.mmu.page_walk_ps;
    mp.fault = m_sc.page_fault_ps;
    m_tool_space = std::make_unique<AddressSpace>(mp);
    m_tool_port = std::make_unique<MmuPort>(*m_ports[m_sc.consumer_cpu], *m_tool_space);
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        BufferSlot& b = m_buffers[i];
        const PerfBufferParams& p = b.rb->params();
        ToolMapping t;
        std::vector<Addr> data = pages(p.user_page, 1);
        for (Addr a : pages(p.data, p.nr_pages))
            data.push_back(a);
        if (const std::string why = perf::data_mmap_error(0, data.size()); !why.empty())
            throw ModelError("perf_mmap refused the data mapping of " + b.name + ": " + why);
        // Read-only for an overwrite buffer (R11): perf maps it without PROT_WRITE.
        t.user_page = m_tool_space->mmap(b.name, data, 0, !p.overwrite, &b.mmu);
        t.data = t.user_page + m_sc.page_size;
        // The AUX area is mapped by the tool itself, once it has written aux_offset and
        // aux_size into this control page (perf::mmap_aux, from the AUX reader's start).
        t.aux_offset = m_sc.aux.offset;
        m_tool_maps.push_back(t);
    }
}

void Platform::build_consumer() {
    PerfConsumerParams p;
    p.reader = m_sc.reader;
    p.wakeup_latency = m_sc.wakeup_latency;
    p.wakeup_cost = m_sc.wakeup_cost;
    p.cpu_share = models::fair_share(m_sc.consumer_nice, m_sc.competitor_nices);
    p.per_record_cost = m_sc.per_record_cost;
    p.lost_record_cost = m_sc.lost_record_cost;
    p.cost_seed = derive_seed(m_sc.seed, "consumer.per_record_cost");
    p.wakeup_seed = derive_seed(m_sc.seed, "consumer.wakeup_latency");
    p.wakeup_cost_seed = derive_seed(m_sc.seed, "consumer.wakeup_cost");
    p.tail_update = m_sc.tail_update;
    p.copy_bandwidth = m_sc.copy_bandwidth;
    p.write_bandwidth = m_sc.write_bandwidth;
    p.poll_timeout = m_sc.poll_timeout_ps;
    p.mmap_flush = m_sc.mmap_flush;
    p.snapshot_every = m_sc.snapshot_every_ps;
    for (const auto& w : m_sc.pauses)
        p.pauses.push_back({w.at_ps, w.length_ps});
    p.c = m_sc.data_barriers.c;
    p.d = m_sc.data_barriers.d;

    // The tool reads its own mappings of the buffers, through its MMU.
    std::vector<ConsumerMmap> mmaps;
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        BufferSlot& b = m_buffers[i];
        ConsumerMmap m;
        m.rb = b.rb.get();
        m.wakeup = b.wakeup.get();
        m.stats = &b.stats;
        m.user_page = m_tool_maps[i].user_page;
        m.data = m_tool_maps[i].data;
        m.data_size = b.rb->data_size();
        m.overwrite = b.rb->params().overwrite;
        m.backward = b.rb->params().backward;
        mmaps.push_back(m);
    }
    m_consumer = std::make_unique<PerfConsumer>("consumer", p, *m_tool_port, std::move(mmaps));
    m_consumer->add_observer(m_checker.get());
}

void Platform::build_aux() {
    using namespace models::coresight;
    // One ETM per traced CPU, with a trace ID from the range the CoreSight trace-ID
    // allocator hands out (0x10 upward).
    std::vector<std::pair<Picos, double>> phases;
    for (const auto& ph : m_sc.trace.phases)
        phases.push_back({ph.at_ps, ph.rate});
    m_rate = std::make_unique<TraceRate>(m_sc.trace.rate, phases);
    m_source_of_cpu.assign(m_sc.cpus, nullptr);
    std::vector<EtmSource*> sources;
    std::vector<unsigned> books_of_source; // the buffer of the event tracing each source
    for (unsigned cpu : m_traced) {
        const bool per_thread = m_sc.deployment == Deployment::per_thread;
        books_of_source.push_back(per_thread ? 0 : unsigned(sources.size())); // as m_buffers
        m_sources.emplace_back("etm" + std::to_string(cpu), uint8_t(0x10 + cpu), *m_rate,
                               uint32_t(m_sc.trace.sync_period));
        m_source_of_cpu[cpu] = &m_sources.back();
        sources.push_back(&m_sources.back());
    }

    // An AUX area beside each mapped buffer (perf record -m ,N; C7).
    const uint64_t aux_size = m_sc.aux.pages * m_sc.page_size;
    std::vector<CheckedAux> checked;
    std::vector<AuxOutput> outputs;
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        BufferSlot& b = m_buffers[i];
        PerfAuxParams p;
        p.name = b.name + ".aux";
        p.user_page = b.rb->params().user_page;
        p.aux_size = aux_size;
        p.overwrite = m_sc.aux.snapshot;
        p.aux_watermark = m_sc.aux.watermark;
        p.a = m_sc.aux_barriers.a;
        p.head_release = m_sc.aux_barriers.b == BarrierKind::release;
        m_auxes.emplace_back(p);
        const Addr base = m_phys.allocate(p.name, aux_size, m_sc.page_size);
        m_aux_bases.push_back(base);
        checked.push_back({p.name, aux_size, base});
        outputs.push_back({i, b.rb.get(), &m_auxes.back(), base, aux_size});
    }
    m_aux_checker = std::make_unique<AuxChecker>(sources, books_of_source, checked,
                                                 m_sc.aux.snapshot, &m_memory.engine());
    m_checker->set_aux_record_sink(
        [this](unsigned idx, uint64_t off, uint64_t size, uint64_t flags) {
            m_aux_checker->on_aux_record(idx, off, size, flags);
        });

    // The ETR's buffer (E1, E2), one per session for CPU-bound events (shared), private
    // per thread: one sink either way here.
    const EtrBuf buf = alloc_etr_buf(aux_size, m_sc.etr.buffer_size, m_sc.etr.mode, m_phys,
                                     derive_seed(m_sc.seed, "etr.sg_pages"));
    EtrSinkParams sp;
    sp.buffer_bytes = buf.size;
    sp.sg = buf.sg;
    sp.flat_base = buf.flat_base;
    sp.sg_pages = buf.sg_pages;
    sp.sg_table = buf.sg_table;
    sp.mem_bandwidth = m_sc.etr.mem_bandwidth;
    sp.fifo_bytes = m_sc.etr.fifo_size;
    sp.flush_latency = m_sc.etr.flush_latency_ps;
    sp.burst = m_sc.etr.burst;
    sp.memerr_at = m_sc.etr.memerr_at_ps;
    sp.sg_walk = m_sc.etr.sg_walk_ps;
    sp.sg_table_fault = m_sc.etr.sg_table_fault;
    EnginePort& etr_port = m_memory.agent("etr", m_sc.timing);
    m_sinks.push_back(std::make_unique<EtrSink>("etr", sp, etr_port, *m_aux_checker));
    EtrSink& sink = *m_sinks.back();
    for (EtmSource& s : m_sources)
        sink.attach(&s);
    sink.build_table();

    CsEtmDriverParams dp;
    dp.snapshot = m_sc.aux.snapshot;
    dp.b = m_sc.aux_barriers.b;
    dp.copy_bandwidth = m_sc.aux_copy_bandwidth;
    m_driver = std::make_unique<CsEtmDriver>(dp, *m_aux_checker);

    uint64_t next_id = 1000;
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        CsEtmEventParams ep;
        ep.irq_work_latency = m_sc.irq_work_latency_ps;
        ep.ipi_latency = m_sc.ipi_latency_ps;
        ep.ctx.sample_type = sample_type_bits(m_sc.sample_type);
        ep.ctx.sample_id_all = m_sc.sample_id_all;
        ep.ctx.pid = kWorkloadPid;
        ep.ctx.id = next_id++;
        m_cs_etm_ids.push_back(ep.ctx.id);
        const int task = m_buffers[i].cpu; // kPerThreadTask for the per-thread buffer
        ep.ctx.tid = task < 0 ? kWorkloadPid : kWorkloadPid + unsigned(task);
        m_events.push_back(std::make_unique<CsEtmEvent>(("cs_etm_" + m_buffers[i].name).c_str(), ep,
                                                        *m_driver, sink, outputs[i], *m_scheduler,
                                                        task, m_source_of_cpu));
    }
}

void Platform::build_aux_reader() {
    AuxtraceReaderParams p;
    p.snapshot = m_sc.aux.snapshot;
    p.snapshot_size = m_sc.aux.snapshot_size;
    p.snapshot_on_exit = m_sc.aux.snapshot_on_exit;
    p.snapshot_at = m_sc.aux.snapshot_at_ps;
    p.copy_bandwidth = m_sc.copy_bandwidth;
    p.write_bandwidth = m_sc.write_bandwidth;
    p.c = m_sc.aux_barriers.c;
    p.d = m_sc.aux_barriers.d;
    std::vector<AuxMmap> mmaps;
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        AuxMmap m;
        m.user_page = m_tool_maps[i].user_page; // the tool's own mappings
        m.aux = m_tool_maps[i].aux;
        m.aux_size = m_sc.aux.pages * m_sc.page_size;
        m.aux_offset = m_tool_maps[i].aux_offset;
        m.event = m_events[i].get();
        m.area.name = m_buffers[i].name;
        m.area.user_page = m_buffers[i].rb->params().user_page;
        m.area.pages = pages(m_aux_bases[i], m_sc.aux.pages);
        m.area.data_size = m_buffers[i].rb->data_size();
        m.area.aux = &m_auxes[i];
        m.area.mmu = &m_buffers[i].mmu;
        mmaps.push_back(m);
    }
    m_aux_reader =
        std::make_unique<AuxtraceReader>(p, *m_tool_port, *m_ports[m_sc.consumer_cpu],
                                         *m_tool_space, std::move(mmaps), *m_aux_checker);
    m_consumer->set_aux(m_aux_reader.get());
}

std::vector<const coresight::EtmSource*> Platform::aux_sources(unsigned buffer) const {
    std::vector<const coresight::EtmSource*> v;
    if (!m_sc.aux.enabled) return v;
    const int cpu = m_buffers.at(buffer).cpu;
    for (unsigned c : m_traced)
        if (cpu < 0 || unsigned(cpu) == c) v.push_back(m_source_of_cpu[c]);
    return v;
}

StatInstances Platform::buffer_stat_instances(unsigned i) const {
    StatInstances in;
    in.add(m_buffers.at(i).stats);
    in.add(m_buffers.at(i).mmu);
    if (m_sc.aux.enabled) {
        // The buffer's AUX area, the event writing into it and the books of its trace.
        in.add(m_auxes.at(i));
        in.add(*m_events.at(i));
        in.add(m_aux_checker->books(i));
    }
    return in;
}

StatInstances Platform::total_stat_instances() const {
    StatInstances in;
    in.add(*m_consumer);
    in.add(*m_perf_data);
    for (unsigned i = 0; i < m_buffers.size(); ++i) {
        in.add(m_buffers[i].stats);
        in.add(m_buffers[i].mmu);
        if (!m_sc.aux.enabled) continue;
        in.add(m_auxes[i]);
        in.add(*m_events[i]);
        in.add(m_aux_checker->books(i));
    }
    if (!m_sc.aux.enabled) return in;
    in.add(*m_driver);
    for (const auto& k : m_sinks)
        in.add(*k);
    in.add(*m_aux_checker);
    in.add(*m_aux_reader);
    return in;
}

} // namespace ringsim::platform
