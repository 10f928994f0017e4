// The typed, validated scenario: what a scenario file says once the strict loader
// (loader.h) has checked every key against the parameter table (params.cpp), filled
// every default and converted every unit. The builder slices it into model params.
//
// Units after loading: sizes in bytes, times in picoseconds, rates in Hz, bandwidths
// in bytes per second. Every field here has exactly one row in params.cpp.
#pragma once

#include "models/memory/ordering_engine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::config {

enum class Deployment { per_cpu, per_thread, system_wide };
enum class Arrival { periodic, poisson, bursty };
enum class RecordKind { sample, switch_, comm };
enum class Context { task, softirq, irq, nmi };
enum class Reader { push, libperf };
enum class TailUpdate { batch, per_record };     // consumer.tail_update
enum class CostDistribution { fixed, exponential }; // consumer.per_record_cost_distribution

// One source of records written into the buffers (workload.writers[i]).
struct Writer {
    std::string name;
    RecordKind record = RecordKind::sample;
    Context context = Context::nmi;
    double rate_hz = 0;               // mean records per second per traced CPU
    Arrival arrival = Arrival::periodic;
    uint64_t size = 0;                // bytes of a PERF_RECORD_SAMPLE (ignored for switch/comm)
    uint64_t write_time_ps = 0;       // time between reservation and publication
    uint64_t burst_size = 1;          // bursty: records per burst
    uint64_t burst_spacing_ps = 0;    // bursty: time between records inside a burst
    uint64_t start_ps = 0;            // first arrival not before this time
};

// One step of the trace rate profile (trace.phases[i]): from `at_ps` on, `rate` bytes/s.
struct TracePhase {
    uint64_t at_ps = 0;
    double rate = 0;
};

enum class EtrMode { auto_, flat, sg };
enum class SgTableFault { none, invalid_entry, missing_link, last_too_early };
enum class Mapping { eager, lazy };

// The AUX area of each mapped buffer and the CoreSight ETM event behind it (session.aux).
struct Aux {
    bool enabled = false;            // perf record -e cs_etm//: an AUX area per buffer
    uint64_t pages = 0;              // AUX pages, 2^n (perf record -m ,N)
    uint64_t offset = 0;             // aux_offset written into the control page (M3)
    uint64_t watermark = 0;          // attr.aux_watermark in bytes; 0 = half the AUX buffer
    bool snapshot = false;           // perf record -S: read-only AUX mapping (A7, C8)
    uint64_t snapshot_size = 0;      // bytes a snapshot read takes at most; 0 = the AUX buffer
    bool snapshot_on_exit = false;   // -Se: a last snapshot at exit
    std::vector<uint64_t> snapshot_at_ps; // SIGUSR2 times (each: disable, read, enable)
};

// The trace each ETM produces while its event runs (trace.*).
struct Trace {
    double rate = 0;                 // ETM bytes/s per traced CPU, before the phases
    std::vector<TracePhase> phases;  // rate changes, sorted by time
    uint64_t sync_period = 512;      // count packets between periodic A-Syncs (TRCSYNCPR)
};

// The TMC-ETR sink (etr.*).
struct Etr {
    uint64_t buffer_size = 1 << 20;  // sysfs buffer_size (drvdata->size), E1 sizing
    EtrMode mode = EtrMode::auto_;   // sysfs buf_mode_preferred (E2)
    double mem_bandwidth = 0;        // bytes/s the sink writes to memory
    uint64_t fifo_size = 0;          // bytes the sink queues above the bandwidth
    uint64_t flush_latency_ps = 0;   // FlushMan to TMCReady, at least
    uint64_t burst = 0;              // bytes per DMA burst the sink issues (modelling granule)
    std::vector<uint64_t> memerr_at_ps; // the capture running at each time ends with STS.MemErr
    uint64_t sg_walk_ps = 0;         // walking one SG table page at an enable
    SgTableFault sg_table_fault = SgTableFault::none;
};

// The consumer CPU's MMU (mmu.*).
struct Mmu {
    unsigned tlb_entries = 64;
    uint64_t tlb_hit_ps = 0;
    uint64_t tlb_miss_ps = 0;
    uint64_t page_walk_ps = 0;
};

// A PERF_EVENT_IOC_PAUSE_OUTPUT window (session.pause[i]).
struct PauseWindow {
    uint64_t at_ps = 0;
    uint64_t length_ps = 0;
};

struct Scenario {
    std::string description;
    uint64_t seed = 1;
    uint64_t duration_ps = 0;         // workload duration; the consumer then drains

    unsigned cpus = 4;                // platform.cpus

    Deployment deployment = Deployment::per_cpu;
    std::vector<unsigned> traced_cpus; // session.cpus, never empty (the loader derives it)
    uint64_t page_size = 4096;
    uint64_t data_pages = 8;          // 2^n data pages (the mmap is 1 + data_pages)
    bool overwrite = false;           // read-only mapping: no tail, no space check (R11)
    bool write_backward = false;      // attr.write_backward (R4)
    uint64_t wakeup_watermark = 0;    // attr.wakeup_watermark in bytes; 0 = data_size / 2 (R6)
    uint64_t wakeup_events = 0;       // attr.wakeup_events (R7); needs wakeup_watermark == 0
    bool sample_id_all = true;
    std::vector<std::string> sample_type; // PERF_SAMPLE_* names, lower case without prefix
    std::vector<PauseWindow> pauses;
    uint64_t migrate_every_ps = 0;    // per-thread: the task moves to the next CPU this often
    Mapping mapping = Mapping::eager; // session.mapping (M1 lazy, M2 eager)
    Aux aux;

    // The traced task's context switches on each traced CPU (workload.switch_every,
    // workload.switch_out): it runs switch_every - switch_out, then is out switch_out.
    uint64_t switch_every_ps = 0;     // 0 = never switched out
    uint64_t switch_out_ps = 0;

    uint64_t irq_work_latency_ps = 0; // kernel.irq_work_latency (R8)
    uint64_t ipi_latency_ps = 0;      // kernel.ipi_latency: a cross-CPU call reaching its CPU
    uint64_t page_fault_ps = 0;       // kernel.page_fault: servicing one fault of the tool
    Mmu mmu;
    double aux_copy_bandwidth = 0;    // kernel.aux_copy_bandwidth: the ETR driver's memcpy

    Trace trace;
    Etr etr;

    models::MemoryModel memory_model = models::MemoryModel::sc;
    models::TimingPolicy timing_policy = models::TimingPolicy::random;
    models::TimingBounds timing;          // memory.timing.*
    models::TimingBounds consumer_timing; // memory.timing.consumer.*
    // barriers.data.{A,B,C,D} and barriers.aux.{A,B,C,D}
    struct Barriers {
        models::BarrierKind a = models::BarrierKind::ctrl, b = models::BarrierKind::wmb;
        models::BarrierKind c = models::BarrierKind::acquire, d = models::BarrierKind::release;
    };
    Barriers data_barriers;
    Barriers aux_barriers{models::BarrierKind::ctrl, models::BarrierKind::wmb,
                          models::BarrierKind::rmb, models::BarrierKind::mb};

    unsigned consumer_cpu = 0;
    Reader reader = Reader::push;
    uint64_t wakeup_latency_ps = 0;   // POLLIN delivered -> consumer running
    uint64_t per_record_cost_ps = 0;
    uint64_t lost_record_cost_ps = 0; // a PERF_RECORD_LOST's cost (default: per_record_cost)
    CostDistribution per_record_cost_distribution = CostDistribution::fixed;
    TailUpdate tail_update = TailUpdate::batch;
    double copy_bandwidth = 0;        // bytes/s, copying out of the mapping
    double write_bandwidth = 0;       // bytes/s, writing perf.data
    uint64_t poll_timeout_ps = 0;     // 0 = infinite (perf record's default)
    uint64_t mmap_flush = 1;          // --mmap-flush bytes (C3 read_init threshold)
    uint64_t snapshot_every_ps = 0;   // overwrite buffers: read every this often (0 = at end)

    std::vector<Writer> writers;
};

} // namespace ringsim::config
