// The typed, validated scenario: what a scenario file says once the strict loader
// (loader.h) has checked every key against the parameter table (params.cpp), filled
// every default and converted every unit. The builder slices it into model params.
//
// Units after loading: sizes in bytes, times in picoseconds, rates in Hz, bandwidths
// in bytes per second. Every field here has exactly one row in params.cpp, which is the one
// place its default is stated: the loader sets every field, so none has a default of its
// own here (each is value-initialised).
#pragma once

#include "models/common/time_distribution.h"
#include "models/coresight/etr_sg_table.h"
#include "models/kernel/arrivals.h"
#include "models/kernel/etr_alloc.h"
#include "models/kernel/exec_context.h"
#include "models/kernel/record_kind.h"
#include "models/memory/mapping_policy.h"
#include "models/memory/ordering_engine.h"
#include "models/user/consumer_policy.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::config {

enum class Deployment { per_cpu, per_thread, system_wide };
// The models' own enums, one definition each.
using Arrival = models::ArrivalKind;   // workload.writers[].arrival
using RecordKind = models::RecordKind; // workload.writers[].record
using Context = models::ExecContext;   // workload.writers[].context
using Reader = models::ReaderKind;     // consumer.reader
using TailUpdate = models::TailUpdate; // consumer.tail_update

// One source of records written into the buffers (workload.writers[i]).
struct Writer {
    std::string name;
    RecordKind record{};
    Context context{};
    double rate_hz{}; // mean records per second per traced CPU
    Arrival arrival{};
    uint64_t size{};             // bytes of a PERF_RECORD_SAMPLE (ignored for switch/comm)
    uint64_t write_time_ps{};    // time between reservation and publication
    bool cpu_clock{};            // event cpu-clock (PERF_COUNT_SW_CPU_CLOCK), else a pmu event
    uint64_t period_ps{};        // cpu-clock: the attr's sample_period (ns), as picoseconds
    uint64_t burst_size{};       // bursty: records per burst
    uint64_t burst_spacing_ps{}; // bursty: time between records inside a burst
    uint64_t start_ps{};         // first arrival not before this time
};

// One step of the trace rate profile (trace.phases[i]): from `at_ps` on, `rate` bytes/s.
struct TracePhase {
    uint64_t at_ps{};
    double rate{};
};

using EtrMode = models::EtrBufMode;                   // etr.mode (buf_mode_preferred)
using SgTableFault = models::coresight::SgTableFault; // etr.sg_table_fault
using Mapping = models::MappingPolicy;                // session.mapping

// The AUX area of each mapped buffer and the CoreSight ETM event behind it (session.aux).
struct Aux {
    bool enabled{};                       // perf record -e cs_etm//: an AUX area per buffer
    uint64_t pages{};                     // AUX pages, 2^n (perf record -m ,N)
    uint64_t offset{};                    // aux_offset written into the control page (M3)
    uint64_t watermark{};                 // attr.aux_watermark in bytes; 0 = half the AUX buffer
    bool snapshot{};                      // perf record -S: read-only AUX mapping (A7, C8)
    uint64_t snapshot_size{};             // bytes a snapshot read takes at most; 0 = the AUX buffer
    bool snapshot_on_exit{};              // -Se: a last snapshot at exit
    std::vector<uint64_t> snapshot_at_ps; // SIGUSR2 times (each: disable, read, enable)
};

// The trace each ETM produces while its event runs (trace.*).
struct Trace {
    double rate{};                  // ETM bytes/s per traced CPU, before the phases
    std::vector<TracePhase> phases; // rate changes, sorted by time
    uint64_t sync_period{};         // count packets between periodic A-Syncs (TRCSYNCPR)
};

// The TMC-ETR sink (etr.*).
struct Etr {
    uint64_t buffer_size{};             // sysfs buffer_size (drvdata->size), E1 sizing
    EtrMode mode{};                     // sysfs buf_mode_preferred (E2)
    double mem_bandwidth{};             // bytes/s the sink writes to memory
    uint64_t fifo_size{};               // bytes the sink queues above the bandwidth
    uint64_t flush_latency_ps{};        // FlushMan to TMCReady, at least
    uint64_t burst{};                   // bytes per DMA burst the sink issues (modelling granule)
    std::vector<uint64_t> memerr_at_ps; // the capture running at each time ends with STS.MemErr
    uint64_t sg_walk_ps{};              // walking one SG table page at an enable
    SgTableFault sg_table_fault{};
};

// The consumer CPU's MMU (mmu.*).
struct Mmu {
    unsigned tlb_entries{};
    uint64_t tlb_hit_ps{};
    uint64_t tlb_miss_ps{};
    uint64_t page_walk_ps{};
};

// A PERF_EVENT_IOC_PAUSE_OUTPUT window (session.pause[i]).
struct PauseWindow {
    uint64_t at_ps{};
    uint64_t length_ps{};
};

struct Scenario {
    std::string description;
    uint64_t seed{};
    uint64_t duration_ps{}; // workload duration; the consumer then drains

    unsigned cpus{}; // platform.cpus

    Deployment deployment{};
    std::vector<unsigned> traced_cpus; // session.cpus, never empty (the loader derives it)
    uint64_t page_size{};
    uint64_t data_pages{};       // 2^n data pages (the mmap is 1 + data_pages)
    bool overwrite{};            // read-only mapping: no tail, no space check (R11)
    bool write_backward{};       // attr.write_backward (R4)
    uint64_t wakeup_watermark{}; // attr.wakeup_watermark in bytes; 0 = data_size / 2 (R6)
    uint64_t wakeup_events{};    // attr.wakeup_events (R7); needs wakeup_watermark == 0
    bool sample_id_all{};
    std::vector<std::string> sample_type; // PERF_SAMPLE_* names, lower case without prefix
    std::vector<PauseWindow> pauses;
    uint64_t migrate_every_ps{}; // per-thread: the task moves to the next CPU this often
    Mapping mapping{};           // session.mapping (M1 lazy, M2 eager)
    Aux aux;

    // The traced task's context switches on each traced CPU (workload.switch_every,
    // workload.switch_out): it runs switch_every - switch_out, then is out switch_out.
    uint64_t switch_every_ps{}; // 0 = never switched out
    uint64_t switch_out_ps{};

    uint64_t irq_work_latency_ps{}; // kernel.irq_work_latency (R8)
    uint64_t ipi_latency_ps{};      // kernel.ipi_latency: a cross-CPU call reaching its CPU
    uint64_t page_fault_ps{};       // kernel.page_fault: servicing one fault of the tool
    Mmu mmu;
    double aux_copy_bandwidth{}; // kernel.aux_copy_bandwidth: the ETR driver's memcpy

    Trace trace;
    Etr etr;

    models::MemoryModel memory_model{};
    models::TimingPolicy timing_policy{};
    models::TimingBounds timing;          // memory.timing.*
    models::TimingBounds consumer_timing; // memory.timing.consumer.*
    // barriers.data.{A,B,C,D} and barriers.aux.{A,B,C,D}
    struct Barriers {
        models::BarrierKind a{}, b{}, c{}, d{};
    };
    Barriers data_barriers;
    Barriers aux_barriers;

    unsigned consumer_cpu{};
    Reader reader{};
    models::TimeDistribution wakeup_latency; // POLLIN delivered -> consumer running
    models::TimeDistribution wakeup_cost;    // CPU time per wake-up, beyond copies and writes
    int consumer_nice{};
    std::vector<int> competitor_nices; // CPU-bound tasks on the consumer's CPU
    models::TimeDistribution per_record_cost;
    models::TimeDistribution lost_record_cost; // a PERF_RECORD_LOST's (default: per_record_cost)
    TailUpdate tail_update{};
    double copy_bandwidth{};      // bytes/s, copying out of the mapping
    double write_bandwidth{};     // bytes/s, writing perf.data
    uint64_t poll_timeout_ps{};   // 0 = infinite (perf record's default)
    uint64_t mmap_flush{};        // --mmap-flush bytes (C3 read_init threshold)
    uint64_t snapshot_every_ps{}; // overwrite buffers: read every this often (0 = at end)

    std::vector<Writer> writers;
};

} // namespace ringsim::config
