// The CoreSight ETM PMU's start and stop (coresight-etm-perf.c : etm_event_start,
// etm_event_stop) around a TMC-ETR sink, with the sink's perf-mode harvest
// (coresight-tmc-etr.c : tmc_update_etr_buffer, tmc_etr_sync_perf_buffer):
// KERNEL-SEMANTICS P1, P2, E3, E5, E7, E8, A1-A3. It runs on the calling CPU's thread, with
// that CPU's memory agent: the caller is the event's scheduling process.
//  start: perf_aux_output_begin (its (A)); no room -> no trace (the event is to be disabled,
//         A2); else enable the sink (refcount) and the ETM; AUX_OUTPUT_HW_ID once per CPU.
//  stop:  ETM off; if the handle is bound: update_buffer (only the last user of a shared
//         sink harvests, E5): flush and stop, sync, keep the newest bytes that fit, barrier
//         packet over the first kept frame when data was lost, copy into the AUX pages at
//         both buffers' ends, (B), then perf_aux_output_end (PERF_RECORD_AUX, then aux_head);
//         then the sink's reference is dropped (E8).
// Leaves out: AUX pause/resume (A8), perf_aux_output_skip, CPUs without a path to the sink.
#pragma once

#include "models/common/uninit_bytes.h"
#include "models/coresight/etm_source.h"
#include "models/coresight/etr_sink.h"
#include "models/coresight/trace_loss.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/perf_aux.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/perf_records.h"
#include "models/memory/linux_barriers.h"

#include <vector>

namespace ringsim::models {

// What the driver touches on the CPU it runs on.
struct EtmCpu {
    CpuState* cpu = nullptr;
    EnginePort* port = nullptr;
    coresight::EtmSource* source = nullptr;
};

// The buffer an event outputs into: its regular part (records) and its AUX area.
struct AuxOutput {
    unsigned idx = 0;
    PerfBuffer* rb = nullptr;
    PerfAux* aux = nullptr;
    Addr aux_base = 0;
    uint64_t aux_size = 0;
};

struct CsEtmDriverParams {
    bool snapshot = false;               // overwrite-mode AUX (A7, E6)
    BarrierKind b = kLinuxAuxBarriers.b; // (B) for AUX: wmb | mb | release | none
    double copy_bandwidth = 0;           // bytes/s of the driver's memcpy
    uint64_t memwidth_mask = ~uint64_t{15};
    ExecContext context = ExecContext::irq; // pmu::start/stop run with interrupts off
};

struct CsEtmCounters {
    uint64_t starts = 0, begin_failures = 0, stops = 0;
    uint64_t harvests = 0, harvest_skipped_shared = 0, harvested_bytes = 0;
    uint64_t truncated = 0, barrier_packets = 0, memerr_captures = 0, wrapped_captures = 0;
    uint64_t copy_stores = 0;
};

class CsEtmDriver {
public:
    CsEtmDriver(const CsEtmDriverParams& params, coresight::TraceObserver& observer);

    // P1 etm_event_start. False: no room in the AUX buffer, nothing started (A2).
    // `why_off` names why the source was off since its last stop (for the accounting).
    bool start(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h, coresight::EtrSink& sink,
               const perf::RecordContext& ctx, bool& hw_id_done, coresight::UntracedCause why_off);
    // P2 etm_event_stop with PERF_EF_UPDATE.
    void stop(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h, coresight::EtrSink& sink,
              const perf::RecordContext& ctx);

    const CsEtmCounters& counters() const { return m_n; }

private:
    uint64_t update_buffer(const EtmCpu& c, AuxOutput& out, PerfAux::Handle& h,
                           coresight::EtrSink& sink, coresight::AuxCommit& commit);
    void copy(const EtmCpu& c, const AuxOutput& out, coresight::EtrSink& sink, uint64_t etr_off,
              uint64_t aux_pos, uint64_t len, coresight::AuxCommit& commit);
    CsEtmDriverParams m_p;
    coresight::TraceObserver& m_observer;
    CsEtmCounters m_n;
    std::vector<uint8_t> m_buf; // a record's bytes
    UninitBytes m_page;         // copy(): one page's bytes, read from the ETR and stored
};

} // namespace ringsim::models
