// One source of records on the kernel side: at each arrival it becomes the running context
// on its CPU and writes one record into a ring buffer the way kernel code does: reserve
// (perf_output_begin), fill (perf_output_sample / perf_output_put), publish
// (perf_output_end). A writer that arrives while a lower context is mid-record nests
// inside it (R2, R3). Mirrors kernel/events/core.c : perf_event_output_forward and
// perf_event_output_backward, perf_event_switch_output, perf_event_comm_output.
// Leaves out: throttling, and the time spent preparing the sample before reservation.
#pragma once

#include "models/kernel/arrivals.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/record_kind.h"
#include "models/kernel/scheduler.h"

#include <functional>
#include <systemc>

namespace ringsim::models {

// Where the writer's event runs at a given moment: its CPU, that CPU's memory agent and the
// ring buffer the event outputs into. A per-thread event moves with its task (scheduler.h).
struct WriteTarget {
    CpuState* cpu = nullptr;
    MemoryPort* mem = nullptr;
    PerfBuffer* rb = nullptr;
};

struct RecordWriterParams {
    RecordKind kind = RecordKind::sample;
    ExecContext context = ExecContext::nmi;
    ArrivalParams arrivals;
    Picos stop = 0;           // no arrival at or after this time (the workload's end)
    uint64_t sample_size = 0; // PERF_RECORD_SAMPLE size in bytes
    Picos write_time = 0;     // CPU time between reservation and publication
    uint64_t seed = 0;
    uint64_t event_id = 0; // event->id
    uint64_t sample_type = 0;
    bool sample_id_all = false;
    uint32_t pid = 0, tid = 0;
    uint64_t period = 0; // the sample period written into PERIOD
};

class RecordWriter : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(RecordWriter);
    // The writer's event belongs to `task` (a CPU, or kPerThreadTask), which `sched` places
    // and switches out (a task-bound event counts nothing while its task is out); it outputs
    // into `rb`. `on_done` runs when the writer has written its last record (the
    // workload's end).
    RecordWriter(sc_core::sc_module_name name, const RecordWriterParams& params, Scheduler& sched,
                 int task, PerfBuffer& rb, std::function<void()> on_done = {});

private:
    void writer_thread();
    void write_one(const WriteTarget& t);
    uint64_t record_size(const perf::RecordContext& ctx) const;

    RecordWriterParams m_p;
    Scheduler& m_sched;
    int m_task;
    PerfBuffer& m_rb;
    std::function<void()> m_on_done;
    ArrivalProcess m_arrivals;
    uint64_t m_seq = 0;
    std::vector<uint8_t> m_bytes;
};

} // namespace ringsim::models
