// The perf tool's reading side on its own CPU: poll the buffers' fds, and for each mapped
// buffer read data_head (C), copy the new records out, write data_tail (D).
// perf's two readers, and those of other projects (readers.h: libbpf, cilium-ebpf, aya,
// aya-0.13), which read_events runs with their own barriers, tail policy and costs.
// perf's two, as the perf tool has them:
//  - push: perf record's bulk path (tools/perf/util/mmap.c : perf_mmap__push), which reads
//    data_head twice (C4) and copies [prev, head) to perf.data in at most two chunks;
//  - libperf: perf_mmap__read_init / perf_mmap__read_event / perf_mmap__consume
//    (tools/lib/perf/mmap.c, C3), one record at a time.
// When data_tail is stored (TailUpdate) is a property of the tool, not of the kernel:
//  - push, batch: perf_mmap__push's perf_mmap__consume once per pass (C4);
//  - push, per_record: the pass copies [prev, head) the same way, then handles the copied
//    records one by one (per_record_cost each, plus its share of the copy and write time)
//    and stores data_tail after each, as some BPF consumers do; prev ends at the last
//    record handled, so the C4 re-copy does not arise;
//  - libperf, per_record: perf_mmap__consume after every perf_mmap__read_event (how perf
//    top, perf trace and the python binding use libperf);
//  - libperf, batch: one perf_mmap__consume after the read_event loop, before read_done.
// per_record_cost (lost_record_cost for a PERF_RECORD_LOST) is drawn per record, and
// wakeup_latency and wakeup_cost per wake-up, each from its distribution (time_distribution.h) and
// its own seeded stream, so a distribution given to one does not shift the other's draws. Its CPU
// times (wakeup_cost, per-record costs, copies and writes) stretch by 1 / cpu_share when
// other tasks compete for its CPU.
// Overwrite (backward) buffers are read the way perf record reads them (C3, C4, C5, R9):
// pause output, perf_mmap__push from data_head back to prev (overwrite_rb_find_range when
// full), resume.
// The loop follows builtin-record.c : record__mmap_read_all and its poll (C5).
// The AUX reads after each data pass are auxtrace_reader.h's, through AuxHooks.
// Leaves out: compression, and threads (--threads).
#pragma once

#include "models/common/buffer_stats.h"
#include "models/common/rng.h"
#include "models/common/time_distribution.h"
#include "models/common/uninit_bytes.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/perf_wakeup.h"
#include "models/memory/linux_barriers.h"
#include "models/memory/memory_port.h"
#include "models/user/consumer_policy.h"
#include "models/user/tool_observers.h"

#include <algorithm>
#include <cmath>
#include <systemc>
#include <vector>

namespace ringsim::models {

// The AUX side of the tool (auxtrace_reader.h), driven by the consumer's loop.
class AuxHooks {
public:
    virtual ~AuxHooks() = default;
    // After the data pass of mmap idx: its AUX read (C5, C6). True when it read anything.
    virtual bool after_data_read(unsigned idx) = 0;
    // When the tool must next act on its own (a snapshot, C8); 0: never.
    virtual Picos next_due() const = 0;
    // Does what is due now.
    virtual void run_due() = 0;
    // The workload exited: perf record disables its events before the last passes.
    virtual void on_exit() = 0;
    // Before the first pass: the tool's setup of its AUX mappings (C7).
    virtual void on_start() {}
};

struct ConsumerMmap {
    PerfBuffer* rb = nullptr;     // for PERF_EVENT_IOC_PAUSE_OUTPUT
    PerfWakeup* wakeup = nullptr; // the fd's poll state
    BufferStats* stats = nullptr;
    Addr user_page = 0; // consumer-side address of the control page
    Addr data = 0;      // consumer-side address of data page 0
    uint64_t data_size = 0;
    bool overwrite = false; // read-only mapping (R11)
    bool backward = false;  // write_backward (R4)
};

struct PauseWindow {
    Picos at = 0;
    Picos length = 0;
};

struct PerfConsumerParams {
    ReaderKind reader = ReaderKind::push;
    TimeDistribution wakeup_latency;   // from the waitqueue wake-up to the consumer running
    TimeDistribution wakeup_cost;      // CPU time per wake-up, beyond copies and writes
    double cpu_share = 1;              // the share of its CPU it gets (sched_weight.h), (0, 1]
    TimeDistribution per_record_cost;  // handling one record (libperf; push with per_record tail)
    TimeDistribution lost_record_cost; // the same for a PERF_RECORD_LOST
    uint64_t cost_seed = 0;            // the stream of per-record cost draws
    uint64_t wakeup_seed = 0;          // the stream of wake-up latency draws
    uint64_t wakeup_cost_seed = 0;     // the stream of wake-up cost draws
    TailUpdate tail_update = TailUpdate::batch;
    double copy_bandwidth = 0;  // bytes/s out of the mapping
    double write_bandwidth = 0; // bytes/s into perf.data
    Picos poll_timeout = 0;     // 0: poll(-1)
    uint64_t mmap_flush = 0;    // read_init's threshold (C3), at least 1
    Picos snapshot_every = 0;   // overwrite buffers: read this often (0: at exit only)
    std::vector<PauseWindow> pauses;
    BarrierKind c = kLinuxDataBarriers.c; // (C): rmb | acquire | mb | none
    BarrierKind d = kLinuxDataBarriers.d; // (D): mb | release | rmb | wmb | none
};

class PerfConsumer : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(PerfConsumer);
    PerfConsumer(sc_core::sc_module_name name, const PerfConsumerParams& params, MemoryPort& mem,
                 std::vector<ConsumerMmap> mmaps);

    // Adds a listener; before the simulation starts.
    void add_observer(ConsumerObserver* observer) { m_observers.push_back(observer); }
    void remove_observer(ConsumerObserver* observer) {
        m_observers.erase(std::remove(m_observers.begin(), m_observers.end(), observer),
                          m_observers.end());
    }

    // The workload has exited (SIGCHLD): drain what is left and finish. Called once every
    // record writer is done, so no record is still being written.
    void workload_exited();

    // The AUX reader; set before the simulation starts.
    void set_aux(AuxHooks* aux) { m_aux = aux; }

    // poll() calls: perf record's `waking`, counted once per fdarray__poll in __cmd_record's
    // loop, whatever the poll returned.
    uint64_t polls() const { return m_polls; }
    ReaderKind reader() const { return m_p.reader; }
    // The tool's read position (md->prev) in mmap idx.
    uint64_t read_position(unsigned idx) const { return m_state.at(idx).prev; }
    uint64_t keep_up_warnings() const { return m_keep_up_failures; }
    // Draws of a distributed time above its key's bound, cut to it (time_distribution.h).
    uint64_t draws_capped() const { return m_draws_capped; }

private:
    struct MmapState {
        uint64_t prev = 0;
        CopyContext last; // the latest data_head load and data_tail store
    };

    void consumer_thread();
    void pause_thread();
    void poll();
    bool read_forward(unsigned idx);
    bool push(unsigned idx);
    bool read_events(unsigned idx);
    void read_backward(unsigned idx);
    void read_backward_all();
    void pass_start();
    void pass_end();
    uint64_t overwrite_rb_find_range(unsigned idx, uint64_t start);
    // A copy out of the mapping, issued now and delivered later (after the tail store,
    // which with (D) off may perform before the copy's loads).
    struct Copy {
        unsigned idx = 0;
        uint64_t pos = 0;
        uint64_t n = 0;
        LoadTicket first, second; // two loads when the range wraps
        CopyContext ctx;          // the data_head load this copy trusted
    };
    Copy issue_copy(unsigned idx, uint64_t pos, uint64_t n);
    void deliver(const Copy& c);
    uint64_t read_head(unsigned idx);
    void keep_up_failure(unsigned idx, uint64_t head);
    Picos cost(uint64_t bytes) const;
    // Handling one record of type `type`: per_record_cost (lost_record_cost for a
    // PERF_RECORD_LOST), drawn from its distribution.
    Picos record_cost(uint32_t type);
    Picos draw(const TimeDistribution& d, Rng& rng); // counts a capped draw
    // Wall time of `work` of CPU time at the consumer's share of its CPU.
    Picos on_cpu(Picos work) const {
        return m_p.cpu_share >= 1 ? work : Picos(std::llround(double(work) / m_p.cpu_share));
    }
    // push with a per-record tail: handles the records of a copied chunk one by one.
    void handle_records(unsigned idx, const Copy& copy);
    void write_tail(unsigned idx, uint64_t tail);
    void set_paused(bool paused);
    bool snapshot_due() const;

    PerfConsumerParams m_p;
    MemoryPort& m_mem;
    std::vector<ConsumerMmap> m_mmaps;
    std::vector<MmapState> m_state;
    std::vector<ConsumerObserver*> m_observers;
    AuxHooks* m_aux = nullptr;
    bool m_user_paused = false;
    bool m_exited = false;
    sc_core::sc_event m_sigchld;
    Picos m_next_snapshot = 0;
    uint64_t m_polls = 0;
    uint64_t m_keep_up_failures = 0;
    UninitBytes m_buf; // a copy's bytes (read_copy)
    Rng m_cost_rng;
    Rng m_wakeup_rng;
    Rng m_wakeup_cost_rng;
    uint64_t m_draws_capped = 0;
    uint64_t m_flush; // map->core.flush: --mmap-flush, 1 for the last pass at exit
};

} // namespace ringsim::models
