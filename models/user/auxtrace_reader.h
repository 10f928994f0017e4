// perf record's AUX side: after each data pass it reads that mmap's AUX area
// (tools/perf/util/auxtrace.c : __auxtrace_mmap__read, KERNEL-SEMANTICS C5, C6): aux_head
// with (C), the new bytes in one or two chunks with perf's own modulo arithmetic
// (auxtrace_read.h), aux_tail with (D), then read_finish, which re-enables the event
// (A9). In snapshot mode (-S) nothing is read in the loop; on SIGUSR2 (snapshot_at) perf
// disables the events (each stops and its driver commits, E5), reads every AUX area with
// the snapshot arithmetic (no tail) and enables them again (C8). At exit the events are
// disabled first; a snapshot session takes one last snapshot only with -Se
// (record__auxtrace_snapshot_exit), else what came since the last one stays unread.
// What a read writes to perf.data (PERF_RECORD_AUXTRACE and its payload) is the listeners'
// (platform/export/perf_data_writer.h); the reader pays its cost.
// Leaves out: the 32-bit tool's triple head read, --aux-sample.
#pragma once

#include "models/common/uninit_bytes.h"
#include "models/kernel/cs_etm_event.h"
#include "models/kernel/perf_mmap.h"
#include "models/memory/engine_port.h"
#include "models/memory/linux_barriers.h"
#include "models/user/auxtrace_read.h"
#include "models/user/perf_consumer.h"
#include "models/user/tool_observers.h"

#include <vector>

namespace ringsim::models {

struct AuxMmap {
    Addr user_page = 0; // consumer-side addresses
    Addr aux = 0;       // set when the tool maps it (on_start)
    uint64_t aux_size = 0;
    uint64_t aux_offset = 0;     // the file offset it is mapped at (C7, M3)
    CsEtmEvent* event = nullptr; // the event whose AUX area this is (for the ioctls)
    perf::AuxArea area;          // what the kernel's perf_mmap maps (its pages, its control page)
};

struct AuxtraceReaderParams {
    bool snapshot = false;
    uint64_t snapshot_size = 0;          // 0: the AUX area
    bool snapshot_on_exit = false;       // -Se (record__auxtrace_snapshot_exit)
    std::vector<Picos> snapshot_at;      // SIGUSR2
    double copy_bandwidth = 0;           // bytes/s out of the AUX mapping
    double write_bandwidth = 0;          // bytes/s into perf.data
    BarrierKind c = kLinuxAuxBarriers.c; // (C) for AUX: rmb | acquire | mb | none
    BarrierKind d = kLinuxAuxBarriers.d; // (D) for AUX: mb | release | rmb | wmb | none
};

struct AuxtraceReaderCounters {
    uint64_t reads = 0, bytes_copied = 0, snapshots = 0, enables = 0, lapped_reads = 0;
};

class AuxtraceReader : public AuxHooks {
public:
    // `mem` is the tool's view of memory (through its MMU over `space`, its address
    // space), `cpu` its CPU's engine agent (for what its synchronous ioctls order, and the
    // kernel side of its mmap calls).
    AuxtraceReader(const AuxtraceReaderParams& params, MemoryPort& mem, EnginePort& cpu,
                   AddressSpace& space, std::vector<AuxMmap> mmaps, AuxObserver& observer);

    bool after_data_read(unsigned idx) override;
    Picos next_due() const override;
    void run_due() override;
    void on_exit() override;
    void on_start() override;

    // Another listener of what the reads copy (the first is the constructor's); before the
    // simulation starts.
    void add_observer(AuxObserver* observer) { m_observers.push_back(observer); }

    const AuxtraceReaderCounters& counters() const { return m_n; }

private:
    bool read(unsigned idx, bool snapshot);
    uint64_t read_head(unsigned idx, CopyContext& ctx);
    void write_tail(unsigned idx, uint64_t tail);
    void snapshot();

    AuxtraceReaderParams m_p;
    MemoryPort& m_mem;
    EnginePort& m_cpu;
    std::vector<AuxMmap> m_mmaps;
    std::vector<uint64_t> m_prev;
    std::vector<uint64_t> m_tail_seq;
    std::vector<AuxObserver*> m_observers;
    AddressSpace& m_space;
    size_t m_next_snapshot = 0;
    AuxtraceReaderCounters m_n;
    UninitBytes m_buf; // a copy's bytes (read_copy)
};

} // namespace ringsim::models
