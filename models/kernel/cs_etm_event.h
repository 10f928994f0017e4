// One perf event of the cs_etm PMU and everything that turns it on and off: the traced
// task's context switches (P3: a task-bound event stops at every sched-out), migrations of
// a per-thread task, perf_event_disable_inatomic from the AUX core (A2, A6: through the
// irq_work, perf_pending_disable), and the tool's ioctls (A9 re-enable after an AUX read,
// C8 snapshot disable/enable, the disable at exit) reaching the event's CPU by IPI.
// Every transition runs the driver's start or stop (cs_etm_driver.h) on the event's CPU,
// in a context that masks interrupts (sample NMIs may still nest inside it).
// Leaves out: address-filter restarts, set_output, AUX pause/resume.
#pragma once

#include "models/kernel/cs_etm_driver.h"
#include "models/kernel/scheduler.h"

#include <functional>
#include <optional>
#include <systemc>

namespace ringsim::models {

struct CsEtmEventParams {
    Picos irq_work_latency = 0; // perf_event_disable_inatomic -> perf_pending_disable
    Picos ipi_latency = 0;      // an ioctl from the tool reaching the event's CPU
    perf::RecordContext ctx;    // pid, tid, event id, sample_id fields of its records
};

struct CsEtmEventCounters {
    uint64_t kernel_disables = 0; // A2/A6 disables that took effect
    uint64_t reenables = 0;       // A9: the tool's enable turned a disabled event back on
    uint64_t sched_outs = 0;
};

class CsEtmEvent : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(CsEtmEvent);
    // The event traces `task` (a CPU's, or kPerThreadTask), which `sched` places and
    // switches out: a per-thread task moves only between records, so the event follows it,
    // retrying until the move has happened. `etm_of_cpu`: each CPU's ETM (by CPU number).
    CsEtmEvent(sc_core::sc_module_name name, const CsEtmEventParams& params, CsEtmDriver& driver,
               coresight::EtrSink& sink, AuxOutput out, Scheduler& sched, int task,
               std::vector<coresight::EtmSource*> etm_of_cpu);

    // PERF_EVENT_IOC_ENABLE from the tool after its AUX read (A9).
    void ioc_enable();
    // PERF_EVENT_IOC_DISABLE, waiting (in the calling thread, whose memory agent is
    // `caller`) until the event has stopped (C8, and perf record's evlist__disable at exit).
    void ioc_disable_sync(EnginePort& caller);
    // The session is over: disable for good and wait.
    void end(EnginePort& caller);

    unsigned aux_index() const { return m_out.idx; }
    // The ETM runs for this event (pmu::start done, no stop since): a task-bound event's
    // task cannot migrate until it has been stopped.
    bool running() const { return m_on; }
    const CsEtmEventCounters& counters() const { return m_n; }

private:
    void event_thread();
    bool task_in(Picos t) const;
    // Where the task runs now (after the scheduler moved it, when due), with its CPU's ETM.
    EtmCpu where();
    // The per-thread task should move off the CPU the event runs on.
    bool moving(Picos t) const;
    Picos next_change(Picos t) const;
    void do_start(const EtmCpu& c);
    void do_stop();
    // Books as untraced, on `source`, the time in [t0, t1) its task ran (EtmSource::
    // add_untraced): between a stop and the next start, the task's code ran with no ETM
    // on while it was in (disabled, a failed start, a move between CPUs, a harvest that
    // outlasted a switch-out), and nothing of it ran while it was scheduled out.
    void book_untraced(coresight::EtmSource& source, Picos t0, Picos t1,
                       coresight::UntracedCause why) const;

    CsEtmEventParams m_p;
    CsEtmDriver& m_driver;
    coresight::EtrSink& m_sink;
    AuxOutput m_out;
    Scheduler& m_sched;
    int m_task;
    std::vector<coresight::EtmSource*> m_etm_of_cpu;

    PerfAux::Handle m_handle;
    bool m_on = false; // the ETM runs (pmu::start succeeded, no stop since)
    EtmCpu m_on_cpu;
    EnginePort* m_last_port = nullptr;         // the CPU the event last ran its driver code on
    coresight::EtmSource* m_stopped = nullptr; // the ETM it ran under, off since m_stopped_at
    Picos m_stopped_at = 0;
    bool m_move_pending = false;          // off, waiting for the per-thread task's move to happen
    bool m_failed = false;                // pmu::start found no AUX room; no retry until sched-in
    bool m_kernel_off = false;            // perf_event_disable_inatomic took effect
    std::optional<Picos> m_kernel_off_at; // when the pending disable lands (0 is a time)
    bool m_user_off = true;               // off until the tool enables it (after its mmaps), and
                                          // when it disables it (snapshot, exit)
    bool m_ending = false;
    std::optional<Picos> m_user_change_at; // when the pending ioctl lands
    bool m_user_change_to_off = false;
    std::vector<bool> m_hw_id_done; // by CPU
    coresight::UntracedCause m_off_cause = coresight::UntracedCause::stop_window;
    sc_core::sc_event m_poke, m_settled;
    CsEtmEventCounters m_n;
    // pmu::start/stop run from the scheduler and IPIs with interrupts masked.
    static constexpr ExecContext m_driver_context = ExecContext::irq;
};

} // namespace ringsim::models
