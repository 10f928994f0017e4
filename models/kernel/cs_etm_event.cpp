#include "models/kernel/cs_etm_event.h"
#include "models/common/sim_wait.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
namespace ringsim::models {

using coresight::UntracedCause;

namespace {
constexpr Picos kMoveRetry = 1000000; // 1 us: the task's move waits for its record to end
} // namespace

CsEtmEvent::CsEtmEvent(sc_core::sc_module_name name, const CsEtmEventParams& params,
                       CsEtmDriver& driver, coresight::EtrSink& sink, AuxOutput out,
                       Scheduler& sched, int task, std::vector<coresight::EtmSource*> etm_of_cpu)
    : sc_module(name), m_p(params), m_driver(driver), m_sink(sink), m_out(out), m_sched(sched),
      m_task(task), m_etm_of_cpu(std::move(etm_of_cpu)) {
    SC_THREAD(event_thread);
}

bool CsEtmEvent::task_in(Picos t) const {
    return m_sched.schedule(m_task).in(t);
}

EtmCpu CsEtmEvent::where() {
    const unsigned cpu = m_sched.cpu_of(m_task, sim_now());
    const SchedCpu c = m_sched.cpu(cpu);
    return {c.state, c.port, m_etm_of_cpu.at(cpu)};
}

bool CsEtmEvent::moving(Picos t) const {
    return m_task < 0 && m_sched.migrate_every() && m_sched.wanted_cpu(t) != m_on_cpu.cpu->id();
}

Picos CsEtmEvent::next_change(Picos t) const {
    Picos next = 0;
    auto consider = [&next](Picos at) {
        if (at && (!next || at < next)) next = at;
    };
    consider(m_sched.schedule(m_task).next_change(t));
    if (const Picos every = m_task < 0 ? m_sched.migrate_every() : 0) {
        consider(t - t % every + every);
        if ((m_on && moving(t)) || (!m_on && m_move_pending)) consider(t + kMoveRetry);
    }
    if (m_kernel_off_at) consider(*m_kernel_off_at);
    if (m_user_change_at) consider(*m_user_change_at);
    return next;
}

void CsEtmEvent::ioc_enable() {
    if (m_ending) return;
    m_user_change_at = sim_now() + m_p.ipi_latency;
    m_user_change_to_off = false;
    sim_notify(m_poke);
}

void CsEtmEvent::ioc_disable_sync(EnginePort& caller) {
    m_user_change_at = sim_now() + m_p.ipi_latency;
    m_user_change_to_off = true;
    sim_notify(m_poke);
    while (m_user_change_at.has_value() || !m_user_off || m_on)
        sim_wait(m_settled);
    // The ioctl returns once the IPI handler has run: smp_call_function_single waits on the
    // csd lock the handler releases (smp_store_release / smp_cond_load_acquire), so what
    // the stop did on the event's CPU (the AUX record, aux_head) is visible to the caller.
    if (m_last_port) caller.engine().handoff(m_last_port->agent(), caller.agent());
}

void CsEtmEvent::end(EnginePort& caller) {
    // Off since before the end (disabled by the AUX core and never re-enabled, say): its
    // task ran untraced until the tool's final disable. A stop the disable itself causes
    // leaves nothing untraced: the session is over.
    if (m_stopped && !m_on) book_untraced(*m_stopped, m_stopped_at, sim_now(), m_off_cause);
    m_ending = true;
    ioc_disable_sync(caller);
    m_stopped = nullptr;
}

void CsEtmEvent::do_start(const EtmCpu& c) {
    c.cpu->enter(m_driver_context);
    const Picos entered = sim_now();
    perf::RecordContext ctx = m_p.ctx;
    ctx.cpu = c.cpu->id();
    ctx.time_ns = entered / kPicosPerNs;
    // perf_log_itrace_start in event_sched_in (P4): at every sched-in and enable, since only
    // Intel PT and BTS mark their events PERF_ATTACH_ITRACE (perf_event_itrace_started);
    // cs-etm follows the traced pid/tid with these records.
    std::vector<uint8_t> rec;
    perf::encode_itrace_start(rec, ctx);
    m_out.rb->output_whole(*c.port, ctx, rec);
    if (m_hw_id_done.size() <= c.cpu->id()) m_hw_id_done.resize(c.cpu->id() + 1);
    bool hw_id = m_hw_id_done[c.cpu->id()];
    m_last_port = c.port;
    const UntracedCause why_off = m_off_cause;
    if (m_driver.start(c, m_out, m_handle, m_sink, ctx, hw_id, m_off_cause)) {
        if (m_stopped) book_untraced(*c.source, m_stopped_at, c.source->started_at(), why_off);
        m_stopped = nullptr;
        m_on = true;
        m_on_cpu = c;
        m_off_cause = UntracedCause::stop_window;
    } else {
        m_failed = true;
        m_off_cause = UntracedCause::aux_disabled;
    }
    m_hw_id_done[c.cpu->id()] = hw_id;
    if (m_out.aux->disable_requested()) {
        // perf_event_disable_inatomic: the irq_work disables the event a little later.
        m_out.aux->clear_disable();
        if (!m_kernel_off_at) m_kernel_off_at = sim_now() + m_p.irq_work_latency;
    }
    c.cpu->leave(m_driver_context, sim_now() - entered);
}

void CsEtmEvent::do_stop() {
    const EtmCpu c = m_on_cpu;
    c.cpu->enter(m_driver_context);
    const Picos entered = sim_now();
    perf::RecordContext ctx = m_p.ctx;
    ctx.cpu = c.cpu->id();
    ctx.time_ns = entered / kPicosPerNs;
    m_driver.stop(c, m_out, m_handle, m_sink, ctx);
    m_on = false;
    m_stopped = c.source;
    m_stopped_at = c.source->stopped_at(); // P2: the source first, then the harvest
    m_last_port = c.port;
    if (m_out.aux->disable_requested()) {
        // TRUNCATED: the event goes off until the tool re-enables it (A6).
        m_out.aux->clear_disable();
        if (!m_kernel_off_at) m_kernel_off_at = sim_now() + m_p.irq_work_latency;
    }
    c.cpu->leave(m_driver_context, sim_now() - entered);
}

void CsEtmEvent::book_untraced(coresight::EtmSource& source, Picos t0, Picos t1,
                               UntracedCause why) const {
    for (Picos a = t0; a < t1;) {
        const Picos change = m_sched.schedule(m_task).next_change(a);
        const Picos b = change && change < t1 ? change : t1;
        if (task_in(a)) source.add_untraced(a, b, why);
        a = b;
    }
}

void CsEtmEvent::event_thread() {
    for (;;) {
        const Picos t = sim_now();
        if (m_kernel_off_at && t >= *m_kernel_off_at) {
            m_kernel_off_at.reset();
            // perf_event_disable_local on an event already off does nothing.
            if (!m_kernel_off && !m_user_off) ++m_n.kernel_disables;
            m_kernel_off = true;
            m_off_cause = UntracedCause::aux_disabled;
        }
        if (m_user_change_at && t >= *m_user_change_at) {
            m_user_change_at.reset();
            if (m_user_change_to_off) {
                m_user_off = true;
            } else if (!m_ending) {
                m_user_off = false;
                if (m_kernel_off || m_failed) ++m_n.reenables;
                m_kernel_off = false;
                m_failed = false;
            }
        }
        const bool in = task_in(t);
        if (!in) m_failed = false; // the next sched-in tries perf_aux_output_begin again
        const bool want = in && !m_kernel_off && !m_user_off && !m_failed;
        if (m_on) {
            // A migrating task is stopped on its old CPU (pmu::del, the whole harvest)
            // before it may run on the new one: ask where it should be, do not move it yet.
            if (!want || moving(t)) {
                if (!in) ++m_n.sched_outs;
                do_stop();
                continue;
            }
        } else if (want) {
            const EtmCpu c = where(); // moves the task first, when due and nothing pins it
            // A move the scheduler could not make yet (a record in flight pins the task):
            // start nowhere until it has happened, rather than on the old CPU only to stop
            // again at once; look again after kMoveRetry.
            m_move_pending =
                m_task < 0 && m_sched.migrate_every() && m_sched.wanted_cpu(t) != c.cpu->id();
            if (!m_move_pending) {
                do_start(c);
                continue;
            }
        }
        sim_notify(m_settled);
        const Picos next = next_change(t);
        if (next > t)
            sim_wait(next - t, m_poke);
        else
            sim_wait(m_poke);
    }
}

} // namespace ringsim::models

namespace ringsim::models {

// One event per buffer: in its buffer's aux object and summed in the total.
void declare_cs_etm_event_stats(StatRegistry& r) {
    r.counter<CsEtmEvent>("aux.event.kernel_disables", "events",
                          "perf_event_disable_inatomic "
                          "taking effect (A2, A6)",
                          [](const CsEtmEvent& e) { return e.counters().kernel_disables; });
    r.counter<CsEtmEvent>("aux.event.reenables", "events",
                          "the tool's PERF_EVENT_IOC_ENABLE "
                          "turning a disabled event back on (A9)",
                          [](const CsEtmEvent& e) { return e.counters().reenables; });
}

} // namespace ringsim::models
