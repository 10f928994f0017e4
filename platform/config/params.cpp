// The scenario parameter table and its two printed forms: the aligned `ringsim params`
// listing and the Markdown of docs/scenario-reference.md. Rules that involve several keys
// (watermark below the buffer size, ...) are enforced in loader.cpp; their descriptions
// live here so that users read them in the reference.
#include "platform/config/params.h"

#include "models/memory/linux_barriers.h"

#include "platform/config/units.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace ringsim::config {

namespace {

using K = ParamKind;
using nlohmann::json;

Param key(std::string path, ParamKind kind) {
    Param p;
    p.path = std::move(path);
    p.kind = kind;
    if (kind == K::object) p.default_value = json::object();
    if (kind == K::object_array || kind == K::integer_list || kind == K::time_list ||
        kind == K::enum_list)
        p.default_value = json::array();
    return p;
}

// Ranges a real machine could have (issue 14 §2): beyond them a run is a typo or a run
// away (a rate of 1000GHz took 40 minutes per simulated millisecond), not a study.
constexpr double kPicosPerSecond = 1e12;
constexpr double kMaxLatency = kPicosPerSecond;      // any one delay or cost: 1 s
constexpr double kMaxSpan = 86400 * kPicosPerSecond; // any instant or period: a day
constexpr double kMinRecordRate = 1e-3;              // records/s: one in 17 minutes
constexpr double kMaxRecordRate = 100e6;             // a record every 10 ns per CPU
constexpr double kMinBandwidth = 1e6;                // 1 MB/s
// A copy or memory bandwidth cannot run away (higher is faster): its bound only catches a
// typo, and leaves room for copying for free, as the M/M/1/K validation needs
// (scenarios/sweeps/mm1k-base.json: 1000000GB/s).
constexpr double kMaxBandwidth = 1e15;
constexpr double kMaxTraceRate = 10e9; // an ETM's 10 GB/s

std::vector<Param> make_table() {
    const std::vector<std::string> contexts = {"task", "softirq", "irq", "nmi"};
    return {
        key("/description", K::string)
            .required()
            .desc("What the scenario shows, in a sentence or a paragraph."),
        key("/seed", K::integer)
            .def(1)
            .at_least(0)
            .desc("Master seed; each component's seed derives from it and the component's name."),
        key("/duration", K::time)
            .at_most(kMaxSpan)
            .def("10ms")
            .above(0)
            .desc("How long the writers run; the consumer then drains what is left."),

        key("/platform", K::object).desc("The simulated machine."),
        key("/platform/cpus", K::integer)
            .def(4)
            .at_least(1)
            .at_most(64)
            .in("CPUs")
            .desc("Number of CPUs."),

        key("/session", K::object)
            .desc("The perf session: its events, their ring buffers and perf_event_attr settings."),
        key("/session/deployment", K::enumeration)
            .def("per-cpu")
            .one_of({"per-cpu", "per-thread", "system-wide"})
            .desc("per-cpu: one buffer per traced CPU; per-thread: one buffer following one "
                  "task; system-wide: per-cpu on every CPU, the consumer's included."),
        key("/session/cpus", K::integer_list)
            .derive("all but the consumer's")
            .at_least(0)
            .at_most(63)
            .unique()
            .desc("Traced CPU ids, each below platform.cpus. [] derives them: every CPU but the "
                  "consumer's (system-wide: every CPU; per-thread: the CPUs the task runs on)."),
        key("/session/page_size", K::size)
            .def("4KiB")
            .one_of({"4KiB", "16KiB", "64KiB"})
            .desc("Page size of the platform and of the buffer mapping."),
        key("/session/data_pages", K::integer)
            .def(8)
            .at_least(1)
            .at_most(1048576)
            .pow2()
            .because("the kernel maps 1 + 2^n pages: the control page, then 2^n data pages")
            .in("pages")
            .desc("Data pages per buffer; the kernel maps 1 + 2^n pages (the control page, then "
                  "2^n data pages)."),
        key("/session/overwrite", K::boolean)
            .def(false)
            .desc(
                "Map the buffer read-only: the kernel ignores data_tail and overwrites the oldest "
                "data (perf record --overwrite)."),
        key("/session/write_backward", K::boolean)
            .def(false)
            .desc("attr.write_backward: the head moves down, the newest record comes first."),
        key("/session/wakeup_watermark", K::size)
            .def("0B")
            .desc("attr.wakeup_watermark: wake the consumer every this many bytes produced; 0B = "
                  "half the data buffer. A larger one than the data buffer is capped at its size, "
                  "as ring_buffer_init does (R6)."),
        key("/session/wakeup_events", K::integer)
            .def(0)
            .at_least(0)
            .in("samples")
            .desc(
                "attr.wakeup_events: also wake every this many samples; 0 = off. It shares a union "
                "with wakeup_watermark, so at most one of them is non-zero."),
        key("/session/sample_id_all", K::boolean)
            .def(true)
            .desc("attr.sample_id_all: non-sample records (LOST, SWITCH, COMM) carry the sample_id "
                  "fields."),
        key("/session/sample_type", K::enum_list)
            .def(json::array({"ip", "tid", "time", "id", "cpu", "period"}))
            .one_of({"identifier", "ip", "tid", "time", "id", "stream_id", "cpu", "period"})
            .unique()
            .desc("PERF_SAMPLE_* fields of every sample, lower case without the prefix."),
        key("/session/pause", K::object_array)
            .desc(
                "PERF_EVENT_IOC_PAUSE_OUTPUT windows, sorted and not overlapping; records written "
                "while paused are lost and counted."),
        key("/session/pause/*/at", K::time)
            .at_most(kMaxSpan)
            .required()
            .desc("When the window opens."),
        key("/session/pause/*/length", K::time)
            .at_most(kMaxSpan)
            .required()
            .above(0)
            .desc("How long output stays paused."),
        key("/session/mapping", K::enumeration)
            .def("eager")
            .one_of({"eager", "lazy"})
            .desc("How the tool's mappings get their pages: eager (Linux 6.14 and later, M2: "
                  "every page mapped read-only at mmap) or lazy (before 6.14, M1: each page "
                  "faults on its first touch)."),
        key("/session/migrate_every", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("per-thread only: the task moves to the next traced CPU this often; 0s = never."),
        key("/session/aux", K::object)
            .desc("The AUX area of each buffer and the CoreSight ETM event that fills it (perf "
                  "record -e cs_etm//)."),
        key("/session/aux/enabled", K::boolean)
            .def(false)
            .desc("Trace with an ETM into a TMC-ETR and map an AUX area beside each buffer."),
        key("/session/aux/pages", K::integer)
            .def(1024)
            .at_least(1)
            .pow2()
            .because("the kernel's AUX area is 2^n pages (rb_alloc_aux)")
            .in("pages")
            .desc("AUX pages per buffer (perf record -m ,N); perf's default for cs_etm as root "
                  "is 4MiB."),
        key("/session/aux/offset", K::size)
            .derive("right after the data mapping: (1 + data_pages) x page_size")
            .desc("aux_offset the tool writes into the control page before mapping the AUX "
                  "area at that file offset (perf_mmap checks it, M3)."),
        key("/session/aux/watermark", K::size)
            .def("0B")
            .desc("attr.aux_watermark: wake the consumer every this many AUX bytes; 0B = half the "
                  "AUX buffer. Any size is taken as rb_alloc_aux takes it, uncapped: at or above "
                  "the AUX buffer size, a wakeup needs aux_head a whole watermark past the last."),
        key("/session/aux/snapshot", K::boolean)
            .def(false)
            .desc("perf record -S: map the AUX area read-only; the driver overwrites it and the "
                  "tool reads it only at snapshots."),
        key("/session/aux/snapshot_on_exit", K::boolean)
            .def(false)
            .desc("perf record -Se: take a last snapshot at exit (record__auxtrace_snapshot_exit). "
                  "Without it, what the AUX areas received since the last snapshot stays "
                  "unread, as with perf's plain -S."),
        key("/session/aux/snapshot_size", K::size)
            .def("0B")
            .desc("The most a snapshot read takes (perf -S<size>); 0B = the AUX buffer. At most "
                  "the AUX buffer size."),
        key("/session/aux/snapshot_at", K::time_list)
            .at_most(kMaxSpan)
            .at_least(0)
            .desc("SIGUSR2 times: at each, perf disables the event, reads every AUX buffer and "
                  "re-enables it (snapshot only)."),

        key("/kernel", K::object).desc("Kernel timing."),
        key("/kernel/irq_work_latency", K::time)
            .at_most(kMaxLatency)
            .def("2us")
            .desc("From perf_output_wakeup to the irq_work that wakes the poll waiters."),
        key("/kernel/page_fault", K::time)
            .at_most(kMaxLatency)
            .def("1us")
            .desc("Servicing one page fault of the tool: a first touch under lazy mapping, "
                  "the first write to the control page under either."),
        key("/kernel/ipi_latency", K::time)
            .at_most(kMaxLatency)
            .def("1us")
            .desc("A cross-CPU call (PERF_EVENT_IOC_ENABLE/DISABLE reaching the event's CPU)."),
        key("/kernel/aux_copy_bandwidth", K::bandwidth)
            .at_least(kMinBandwidth)
            .at_most(kMaxBandwidth)
            .def("4GB/s")
            .desc("The ETR driver's memcpy from its buffer into the AUX pages "
                  "(tmc_etr_sync_perf_buffer)."),

        key("/memory", K::object).desc("Shared memory and its ordering engine (MEMORY-MODEL.md)."),
        key("/memory/model", K::enumeration)
            .def("sc")
            .one_of({"sc", "tso", "arm"})
            .desc("sc: every access performs at issue, in order; tso: x86 (only store then load "
                  "reorders); arm: ARMv8, multi-copy atomic, weakly ordered."),
        key("/memory/timing", K::object)
            .desc("When accesses perform, around their issue time (tso and arm only)."),
        key("/memory/timing/policy", K::enumeration)
            .def("random")
            .one_of({"none", "random", "adversarial"})
            .desc("none: perform at issue; random: anywhere in the bounds (seeded); "
                  "adversarial: at one end of the bounds or the other (seeded)."),
        key("/memory/timing/store_drain_max", K::time)
            .at_most(kMaxLatency)
            .def("100ns")
            .desc("A store performs at most this long after its issue (the store buffer)."),
        key("/memory/timing/load_early_max", K::time)
            .at_most(kMaxLatency)
            .def("50ns")
            .desc("A load may perform up to this long before its issue (hoisted, speculative)."),
        key("/memory/timing/load_late_max", K::time)
            .at_most(kMaxLatency)
            .def("100ns")
            .desc("A load may perform up to this long after its issue (still in flight)."),

        key("/memory/timing/consumer", K::object)
            .desc("The consumer's CPU's own bounds, where it should differ from the others."),
        key("/memory/timing/consumer/store_drain_max", K::time)
            .at_most(kMaxLatency)
            .derive("memory.timing.store_drain_max")
            .desc("store_drain_max for the consumer's CPU."),
        key("/memory/timing/consumer/load_early_max", K::time)
            .at_most(kMaxLatency)
            .derive("memory.timing.load_early_max")
            .desc("load_early_max for the consumer's CPU."),
        key("/memory/timing/consumer/load_late_max", K::time)
            .at_most(kMaxLatency)
            .derive("memory.timing.load_late_max")
            .desc("load_late_max for the consumer's CPU."),

        key("/barriers", K::object)
            .desc("The four barriers of the protocol as switches; defaults are what Linux does."),
        key("/barriers/data", K::object).desc("The regular (data) ring buffer's barriers."),
        key("/barriers/data/A", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxDataBarriers.a))
            .one_of({"ctrl", "none"})
            .desc("(A) producer: the control dependency on data_tail before record stores; "
                  "pairs with (D)."),
        key("/barriers/data/B", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxDataBarriers.b))
            .one_of({"wmb", "mb", "release", "none"})
            .desc("(B) producer: between the record stores and the data_head store (the "
                  "kernel's smp_wmb); pairs with (C)."),
        key("/barriers/data/C", K::enumeration)
            .derive("the reader's own: acquire for push, libperf, cilium-ebpf; mb for libbpf; "
                    "rmb for aya; none for aya-0.13")
            .one_of({"rmb", "acquire", "mb", "none"})
            .desc("(C) consumer: after the data_head load (perf's smp_load_acquire); pairs "
                  "with (B)."),
        key("/barriers/data/D", K::enumeration)
            .derive("the reader's own: release for push, libperf, cilium-ebpf; mb for libbpf, "
                    "aya, aya-0.13")
            .one_of({"mb", "release", "rmb", "wmb", "none"})
            .desc("(D) consumer: before the data_tail store (perf's smp_store_release); pairs "
                  "with (A)."),
        key("/barriers/aux", K::object)
            .desc("The AUX buffer's barriers (B is the ETR driver's smp_wmb after its copy)."),
        key("/barriers/aux/A", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxAuxBarriers.a))
            .one_of({"ctrl", "none"})
            .desc("(A) perf_aux_output_begin's control dependency on aux_tail; pairs with (D)."),
        key("/barriers/aux/B", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxAuxBarriers.b))
            .one_of({"wmb", "mb", "release", "none"})
            .desc("(B) the driver's barrier between the trace bytes and aux_head; pairs with "
                  "(C)."),
        key("/barriers/aux/C", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxAuxBarriers.c))
            .one_of({"rmb", "acquire", "mb", "none"})
            .desc("(C) perf's smp_rmb after reading aux_head; pairs with (B)."),
        key("/barriers/aux/D", K::enumeration)
            .def(models::barrier_kind_name(models::kLinuxAuxBarriers.d))
            .one_of({"mb", "release", "rmb", "wmb", "none"})
            .desc("(D) perf's smp_mb before writing aux_tail; pairs with (A)."),

        key("/mmu", K::object)
            .desc("The consumer CPU's MMU: the tool reads its mappings "
                  "through it; the kernel writes through its own."),
        key("/mmu/tlb_entries", K::integer)
            .def(64)
            .at_least(0)
            .at_most(65536)
            .in("entries")
            .desc("TLB entries of the consumer's CPU (least recently used out); 0 = none."),
        key("/mmu/tlb_hit", K::time)
            .at_most(kMaxLatency)
            .def("0ns")
            .desc("Added to an access for each page it touches that the TLB holds."),
        key("/mmu/tlb_miss", K::time)
            .at_most(kMaxLatency)
            .def("5ns")
            .desc("Added for each page the TLB misses, before the page walk."),
        key("/mmu/page_walk", K::time)
            .at_most(kMaxLatency)
            .def("25ns")
            .desc("Walking the page table for a page the TLB missed."),

        key("/consumer", K::object).desc("The perf-record-like reader of the buffers."),
        key("/consumer/cpu", K::integer)
            .derive("the last CPU")
            .at_least(0)
            .at_most(63)
            .desc("CPU the consumer runs on, below platform.cpus; by default platform.cpus - 1."),
        key("/consumer/reader", K::enumeration)
            .def("push")
            .one_of({"push", "libperf", "libbpf", "cilium-ebpf", "aya", "aya-0.13"})
            .desc("push: perf record's bulk copy (perf_mmap__push); libperf: record by record "
                  "(perf_mmap__read_event); libbpf: perf_buffer (perf_event_read_simple: "
                  "data_head once with READ_ONCE+smp_mb, records in place, one tail store "
                  "after smp_mb); cilium-ebpf: Go's perf.Reader (atomic data_head once per "
                  "wake-up, each record copied, atomic tail store after each); aya: Rust's "
                  "PerfBuffer 0.14 (fence(Acquire) after data_head, in place, fence(SeqCst) "
                  "before one tail store); aya-0.13: the same before 0.14, no fence after "
                  "data_head. docs/readers.md."),
        key("/consumer/wakeup_latency", K::time_distribution)
            .at_most(kMaxLatency)
            .def("10us")
            .desc("From POLLIN to the consumer running, drawn at each wake-up (seeded stream "
                  "\"consumer.wakeup_latency\"). tools/realperf/profile writes the one it "
                  "measured (docs/validation.md)."),
        key("/consumer/wakeup_cost", K::time_distribution)
            .at_most(kMaxLatency)
            .def("0s")
            .desc("Consumer CPU time per wake-up beyond its copies and writes (poll's return, "
                  "the walk of perf record's read loop over its mmaps, their syscalls), spent "
                  "once it runs, before it reads. tools/realperf/profile measures it."),
        key("/consumer/nice", K::integer)
            .at_least(-20)
            .at_most(19)
            .def(0)
            .desc("The consumer's nice level, for its share of its CPU beside competitors."),
        key("/consumer/competitors", K::object_array)
            .desc("CPU-bound tasks on the consumer's CPU, always runnable. While the consumer "
                  "works it gets weight(nice) over the sum of the weights there (the fair "
                  "scheduler's share; weights from kernel/sched/core.c : "
                  "sched_prio_to_weight), so its wake-up, per-record, copy and write CPU times "
                  "stretch by the inverse. How long it waits to run once woken is "
                  "wakeup_latency's part."),
        key("/consumer/competitors/*/nice", K::integer)
            .at_least(-20)
            .at_most(19)
            .required()
            .desc("The competing task's nice level."),
        key("/consumer/per_record_cost", K::time_distribution)
            .at_most(kMaxLatency)
            .def("50ns")
            .desc("Consumer CPU time handling one record, drawn per record (seeded stream "
                  "\"consumer.per_record_cost\"), charged by the readers that handle records "
                  "one by one: all but push, and push with tail_update per_record; with push "
                  "and a batch tail it must be a fixed time."),
        key("/consumer/lost_record_cost", K::time_distribution)
            .at_most(kMaxLatency)
            .derive("consumer.per_record_cost")
            .desc("Consumer CPU time handling one PERF_RECORD_LOST, drawn like per_record_cost "
                  "and from its stream, where per_record_cost is charged. perf's handlers only "
                  "add a LOST record to counters, so it can be far cheaper than a sample."),
        key("/consumer/tail_update", K::enumeration)
            .derive("the reader's own: per_record for libperf and cilium-ebpf, else batch")
            .one_of({"batch", "per_record"})
            .desc("When data_tail is stored. batch: once per pass (push: perf_mmap__push's "
                  "consume; libperf: one perf_mmap__consume after the read_event loop). "
                  "per_record: after each record is handled (libperf: perf_mmap__consume after "
                  "every read_event; push: the copied chunk is handled record by record, each "
                  "costing per_record_cost, as some BPF consumers do)."),
        key("/consumer/copy_bandwidth", K::bandwidth)
            .at_least(kMinBandwidth)
            .at_most(kMaxBandwidth)
            .def("4GB/s")
            .desc("Copying out of the mapping."),
        key("/consumer/write_bandwidth", K::bandwidth)
            .at_least(kMinBandwidth)
            .at_most(kMaxBandwidth)
            .def("1GB/s")
            .desc("Writing perf.data."),
        key("/consumer/poll_timeout", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("poll() timeout; 0s = infinite, perf record's default."),
        key("/consumer/mmap_flush", K::size)
            .def("1B")
            .at_least(1)
            .desc(
                "perf record --mmap-flush: read a buffer once this many bytes are unread; at most "
                "a quarter of the data buffer."),
        key("/consumer/snapshot_every", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("Overwrite buffers only: read them this often; 0s = only at the end."),

        key("/workload", K::object).desc("What writes records into the buffers."),
        key("/workload/writers", K::object_array)
            .required()
            .items_at_least(1)
            .desc("Sources of records; at least one."),
        key("/workload/writers/*/name", K::string)
            .required()
            .desc("Writer name, unique among writers."),
        key("/workload/writers/*/record", K::enumeration)
            .def("sample")
            .one_of({"sample", "switch", "comm"})
            .desc("Record type: PERF_RECORD_SAMPLE, PERF_RECORD_SWITCH or PERF_RECORD_COMM."),
        key("/workload/writers/*/event", K::enumeration)
            .def("pmu")
            .one_of({"pmu", "cpu-clock"})
            .desc("pmu: a hardware event's overflow interrupt, at rate. cpu-clock: the software "
                  "event perf record -e cpu-clock -c PERIOD opens (PERF_COUNT_SW_CPU_CLOCK): "
                  "kernel/events/core.c : perf_swevent_hrtimer samples from its hrtimer, in hard "
                  "interrupt context, every max(period, 10us), the kernel's floor."),
        key("/workload/writers/*/context", K::enumeration)
            .derive("irq for event cpu-clock (its hrtimer), else nmi")
            .one_of(contexts)
            .desc(
                "Context that writes; a higher context nests inside a lower one on the same CPU."),
        key("/workload/writers/*/rate", K::frequency)
            .at_least(kMinRecordRate)
            .at_most(kMaxRecordRate)
            .required()
            .desc("Mean records per second per traced CPU. For event cpu-clock it may be left "
                  "out: its timer's 1 / max(period, 10us); given, at most that: a machine whose "
                  "hrtimer fires late samples less often (hrtimer_forward_now skips the periods "
                  "it missed), and tools/realperf/profile writes the rate it measured."),
        key("/workload/writers/*/period", K::time)
            .above(0)
            .at_most(kMaxLatency)
            .derive("none: event cpu-clock only, and required there")
            .desc("cpu-clock: the attr's sample_period in ns (perf record -c), written into each "
                  "sample's PERIOD as the kernel does (hw.last_period), even below the 10us the "
                  "timer is held to."),
        key("/workload/writers/*/arrival", K::enumeration)
            .def("periodic")
            .one_of({"periodic", "poisson", "bursty"})
            .desc("Arrival process; bursty sends burst_size records burst_spacing apart."),
        key("/workload/writers/*/size", K::size)
            .derive("64B; for event cpu-clock the sample_type's fixed part (32B for ip, tid, time)")
            .desc("PERF_RECORD_SAMPLE size: the sample_type fixed part, or more in multiples of 8 "
                  "(PERF_SAMPLE_RAW fills the rest). Ignored for switch and comm records."),
        key("/workload/writers/*/write_time", K::time)
            .at_most(kMaxLatency)
            .def("100ns")
            .desc("Time between reserving a record and publishing it."),
        key("/workload/writers/*/burst_size", K::integer)
            .def(1)
            .at_least(1)
            .in("records")
            .desc("bursty: records per burst."),
        key("/workload/writers/*/burst_spacing", K::time)
            .at_most(kMaxLatency)
            .def("100ns")
            .desc("bursty: time between the records of a burst."),
        key("/workload/writers/*/start", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("No record before this time."),
        key("/workload/switch_every", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("The traced task is switched out this often on each traced CPU (task-bound "
                  "events stop, P3); 0s = never."),
        key("/workload/switch_out", K::time)
            .at_most(kMaxSpan)
            .def("0s")
            .desc("How long each switch-out lasts; below switch_every."),

        key("/trace", K::object)
            .desc("The trace each ETM produces while its event runs on its CPU."),
        key("/trace/rate", K::bandwidth)
            .at_most(kMaxTraceRate)
            .def("100MB/s")
            .above(0)
            .desc("ETM trace bytes per second per traced CPU while tracing."),
        key("/trace/phases", K::object_array)
            .desc("Rate changes: from at on, the rate is this; sorted by at, no two at the same "
                  "time."),
        key("/trace/phases/*/at", K::time)
            .at_most(kMaxSpan)
            .required()
            .desc("When the phase begins."),
        key("/trace/phases/*/rate", K::bandwidth)
            .at_most(kMaxTraceRate)
            .required()
            .at_least(0)
            .desc("ETM trace bytes per second per traced CPU from at on."),
        key("/trace/sync_period", K::integer)
            .def(512)
            .at_least(1)
            .in("packets")
            .desc("Count packets between periodic sync blocks (A-Sync, Trace Info, address; the "
                  "role of TRCSYNCPR); a "
                  "decoder that lost sync finds the next one."),

        key("/etr", K::object).desc("The TMC-ETR sink (coresight-tmc-etr.c)."),
        key("/etr/buffer_size", K::size)
            .def("1MiB")
            .at_least(4096)
            .at_most(8.0 * (1ull << 30))
            .pow2()
            .because("the ETR buffer is allocated in whole 4KiB pages and halved on failure (E1); "
                     "its size register RSZ counts 32-bit words in 32 bits")
            .desc("sysfs buffer_size: the ETR buffer the driver tries first; it uses the AUX size "
                  "instead when the AUX area is larger (E1)."),
        key("/etr/mode", K::enumeration)
            .def("auto")
            .one_of({"auto", "flat", "sg"})
            .desc("sysfs buf_mode_preferred: flat (one contiguous DMA buffer) or sg (the ETR walks "
                  "a scatter-gather table); auto picks as the driver does (E2)."),
        key("/etr/mem_bandwidth", K::bandwidth)
            .at_least(kMinBandwidth)
            .at_most(kMaxBandwidth)
            .def("2GB/s")
            .desc("How fast the sink writes trace into memory; input above it queues in the FIFO, "
                  "then overflows."),
        key("/etr/fifo_size", K::size)
            .def("4KiB")
            .at_least(16)
            .at_most(1 << 20)
            .because("the formatter holds at least the frame it is filling; a TMC's SRAM holds "
                     "kilobytes")
            .desc("Trace the sink buffers when input outruns the memory bandwidth; more is lost "
                  "(overflow)."),
        key("/etr/flush_latency", K::time)
            .at_most(kMaxLatency)
            .def("2us")
            .desc("FlushMan to TMCReady at least (the flush handshake); longer when the FIFO must "
                  "drain."),
        key("/etr/burst", K::size)
            .def("16KiB")
            .at_least(16)
            .desc("The granule the sink model moves trace in: arrivals and DMA writes are "
                  "processed per burst of this many bytes, never per frame. A multiple of 16B."),
        key("/etr/sg_walk", K::time)
            .at_most(kMaxLatency)
            .def("100ns")
            .desc("ETR_SG: the sink's walk of one table page at each enable; trace arriving "
                  "meanwhile waits in the FIFO."),
        key("/etr/sg_table_fault", K::enumeration)
            .def("none")
            .one_of({"none", "invalid_entry", "missing_link", "last_too_early"})
            .desc("ETR_SG: break the table the driver built (an entry of type 0, a data "
                  "entry where a link belongs, LAST before the end): every walk fails, "
                  "STS.MemErr, the whole capture discarded (E4, D10)."),
        key("/etr/memerr_at", K::time_list)
            .at_most(kMaxSpan)
            .at_least(0)
            .desc("The capture running at each of these times ends with STS.MemErr: the driver "
                  "discards it whole (D10)."),
    };
}

// A bound in the kind's own words: "64", "1B", "250ns".
// "100MHz", "1MB/s", "1000GB/s": the largest unit (each 1000 times the one before) that
// leaves at least 1, as the scenario would write it.
std::string with_decimal_unit(double v, const std::vector<const char*>& units) {
    size_t i = 0;
    for (; i + 1 < units.size() && v >= 1000; ++i)
        v /= 1000;
    std::ostringstream s;
    s << std::setprecision(15) << v << units[i]; // 1000000GB/s, not 1e+06GB/s
    return s.str();
}

std::string bound_text(ParamKind kind, double v) {
    if (v == 0) return "0";
    // Only sizes and times are read as whole units, and their bounds are never negative; a
    // negative bound (a nice level's -20) must not be cast to an unsigned (the loader fuzz
    // target's UBSan find, tests/fuzz/regressions/loader/nice-out-of-range).
    const auto u = v > 0 ? static_cast<uint64_t>(v) : 0;
    switch (kind) {
    case K::size:
        return format_size(u);
    case K::time:
    case K::time_distribution:
        return format_time(u);
    case K::frequency:
        return with_decimal_unit(v, {"Hz", "kHz", "MHz", "GHz"});
    case K::bandwidth:
        return with_decimal_unit(v, {"B/s", "KB/s", "MB/s", "GB/s"});
    default: {
        if (v == std::floor(v) && std::fabs(v) < 9e15)
            return std::to_string(static_cast<int64_t>(v));
        std::ostringstream s;
        s << v;
        return s.str();
    }
    }
}

} // namespace

std::string param_bounds_text(const Param& p) {
    if (p.min && p.max)
        return p.min_exclusive
                   ? "> " + bound_text(p.kind, *p.min) + " and <= " + bound_text(p.kind, *p.max)
                   : bound_text(p.kind, *p.min) + ".." + bound_text(p.kind, *p.max);
    if (p.min) return (p.min_exclusive ? "> " : ">= ") + bound_text(p.kind, *p.min);
    if (p.max) return "<= " + bound_text(p.kind, *p.max);
    return "";
}

namespace {

std::string kind_text(const Param& p) {
    switch (p.kind) {
    case K::integer:
        return "integer";
    case K::boolean:
        return "boolean";
    case K::string:
        return "string";
    case K::enumeration:
        return "enum " + join(p.choices, "|");
    case K::size:
        return p.choices.empty() ? "size" : "size " + join(p.choices, "|");
    case K::time:
        return "time";
    case K::time_distribution:
        return "time or distribution";
    case K::frequency:
        return "frequency";
    case K::bandwidth:
        return "bandwidth";
    case K::integer_list:
        return "list of integers";
    case K::time_list:
        return "list of times";
    case K::enum_list:
        return "list of names"; // too many to fit the column: see full_description
    case K::object_array:
        return "list of objects";
    case K::object:
        return "object";
    }
    return "";
}

// The description, plus the allowed names of a list of names.
std::string full_description(const Param& p) {
    if (p.kind != K::enum_list) return p.description;
    return p.description + " Names: " + join(p.choices, ", ") + ".";
}

struct Row {
    std::string key, type, def, description;
};

std::vector<Row> rows() {
    std::vector<Row> out;
    for (const Param& p : params())
        out.push_back(
            {dotted_key(p.path), param_type_text(p), param_default_text(p), full_description(p)});
    return out;
}

// Markdown table cells must not contain a bare '|'.
std::string md_cell(const std::string& text) {
    std::string out;
    for (char c : text)
        out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

std::string md_code(const std::string& text) {
    return "`" + md_cell(text) + "`";
}

} // namespace

const std::vector<Param>& params() {
    static const std::vector<Param> table = make_table();
    return table;
}

const Param* find_param(std::string_view pattern) {
    // Asked for every key of every scenario loaded: a worker of sweep or matrix loads one per
    // run, and a scan of the whole table for each key was a tenth of a short run's cost.
    static const std::unordered_map<std::string_view, const Param*> index = [] {
        std::unordered_map<std::string_view, const Param*> by_path;
        for (const Param& p : params())
            by_path.emplace(p.path, &p); // the first of a path, as the scan found it
        return by_path;
    }();
    const auto it = index.find(pattern);
    return it == index.end() ? nullptr : it->second;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : sep) + item;
    return out;
}

const std::vector<const Param*>& child_params(std::string_view pattern) {
    // Asked for every object of every scenario loaded (its defaults), as find_param is for
    // every key: one scan of the table per parent, kept, instead of one per object.
    static const std::unordered_map<std::string_view, std::vector<const Param*>> index = [] {
        std::unordered_map<std::string_view, std::vector<const Param*>> by_parent;
        for (const Param& p : params()) {
            const std::string_view path = p.path;
            by_parent[path.substr(0, path.rfind('/'))].push_back(&p); // "" for the top level
        }
        return by_parent;
    }();
    static const std::vector<const Param*> none;
    const auto it = index.find(pattern);
    return it == index.end() ? none : it->second;
}

std::string dotted_key(std::string_view path) {
    std::string out;
    size_t i = 0;
    while (i < path.size()) {
        const size_t next = std::min(path.find('/', i + 1), path.size());
        const std::string_view token = path.substr(i + 1, next - i - 1);
        if (token == "*")
            out += "[]";
        else
            out += (out.empty() ? "" : ".") + std::string(token);
        i = next;
    }
    return out;
}

std::string param_type_text(const Param& p) {
    std::string text = kind_text(p);
    if (!p.unit.empty()) text += " (" + p.unit + ")";
    const std::string bounds = param_bounds_text(p);
    if (!bounds.empty()) text += " " + bounds;
    if (p.power_of_two) text += ", power of two";
    if (p.kind == K::time_list) text += ", strictly increasing";
    if (p.unique_items) text += ", no duplicates";
    if (p.min_items > 0) text += ", at least " + std::to_string(p.min_items);
    return text;
}

std::string param_default_text(const Param& p) {
    switch (p.default_kind) {
    case DefaultKind::required:
        return "required";
    case DefaultKind::derived:
        return "derived: " + p.derived;
    case DefaultKind::value:
        break;
    }
    return p.default_value.dump();
}

void print_params(std::ostream& out) {
    std::vector<Row> all = rows();
    // The listing has no preamble: a distributed time says its forms in its own row.
    for (size_t i = 0; i < params().size(); ++i)
        if (params()[i].kind == K::time_distribution)
            all[i].description += std::string(" Takes ") + kTimeDistributionSyntax + ".";
    all.insert(all.begin(), Row{"KEY", "TYPE/UNIT", "DEFAULT", "DESCRIPTION"});
    size_t wk = 0, wt = 0, wd = 0;
    for (const Row& r : all) {
        wk = std::max(wk, r.key.size());
        wt = std::max(wt, r.type.size());
        wd = std::max(wd, r.def.size());
    }
    for (const Row& r : all) {
        out << r.key << std::string(wk - r.key.size() + 2, ' ') << r.type
            << std::string(wt - r.type.size() + 2, ' ') << r.def
            << std::string(wd - r.def.size() + 2, ' ') << r.description << '\n';
    }
}

std::string params_markdown() {
    std::ostringstream md;
    md << "# Scenario reference\n\n"
       << "<!-- Generated from platform/config/params.cpp by params_markdown(); do not edit.\n"
       << "     Regenerate with: RINGSIM_UPDATE_DOCS=1 build/tests/params_test -->\n\n"
       << "A scenario is a JSON object. Every key below is optional unless its default says\n"
       << "`required`; an unknown key is an error. `[]` in a key stands for every element of\n"
       << "an array. Override any key from the command line with `--set key=value`, e.g.\n"
       << "`--set session.data_pages=16` or `--set workload.writers.0.rate=2kHz`.\n\n"
       << "Quantities are strings with a unit; a bare number is an error:\n\n"
       << "- size: " << kSizeSyntax << " (KB, MB, GB are powers of 1000)\n"
       << "- time: " << kTimeSyntax << ", exact to the picosecond\n"
       << "- frequency: " << kFrequencySyntax << "\n"
       << "- bandwidth: " << kBandwidthSyntax << "\n\n"
       << "A key of type `time or distribution` takes a time (that time, every time) or\n"
       << "one of these objects, each draw from the run's seeded stream for that key\n"
       << "(`consumer.wakeup_latency`, `consumer.per_record_cost`, ...), so runs repeat:\n\n"
       << "- `{\"distribution\": \"exponential\", \"mean\": \"100us\"}`\n"
       << "- `{\"distribution\": \"lognormal\", \"median\": \"50us\", \"sigma\": 1.2}`: "
          "sigma is the\n  standard deviation of ln(time), 0..4\n"
       << "- `{\"distribution\": \"empirical\", \"histogram\": [[\"20us\", 950], "
          "[\"3ms\", 50]]}`: each\n  time drawn with probability count / total; times "
          "strictly increasing, counts >= 0\n"
       << "- `{\"distribution\": \"empirical\", \"file\": \"latency.csv\"}`: the same "
          "from a file\n  beside the scenario, one `TIME,COUNT` line per bin (`#` starts a "
          "comment);\n  the loader reads it into `histogram` (as run.json's `effective_config` "
          "shows)\n\n"
       << "The key's bounds apply to every time the object names. A draw above the key's\n"
       << "upper bound (a lognormal's far tail) is cut to it and counted in\n"
       << "`consumer.draws_capped`.\n";
    for (const Param& p : params()) {
        const bool section =
            p.kind == K::object && std::count(p.path.begin(), p.path.end(), '/') == 1;
        if (section || &p == &params().front()) {
            md << "\n## " << (section ? md_code(dotted_key(p.path)) : "Top level") << "\n\n";
            if (section) md << p.description << "\n\n";
            md << "| Key | Type | Default | Description |\n|---|---|---|---|\n";
            if (section) continue;
        }
        const std::string def = p.default_kind == DefaultKind::value
                                    ? md_code(param_default_text(p))
                                    : md_cell(param_default_text(p));
        md << "| " << md_code(dotted_key(p.path)) << " | " << md_cell(param_type_text(p)) << " | "
           << def << " | " << md_cell(full_description(p)) << " |\n";
    }
    return md.str();
}

} // namespace ringsim::config
