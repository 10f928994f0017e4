#include "models/kernel/perf_wakeup.h"
#include "models/common/sim_wait.h"

#include "models/common/stat_registry.h"

namespace ringsim::models {

PerfWakeup::PerfWakeup(sc_core::sc_module_name name, Picos irq_work_latency, BufferStats& stats)
    : sc_module(name), m_latency(irq_work_latency), m_stats(stats) {
    SC_METHOD(irq_work_method);
    sensitive << m_irq_work;
    dont_initialize();
}

void PerfWakeup::perf_output_wakeup() {
    m_poll = true;         // atomic_set(&rb->poll, EPOLLIN | EPOLLRDNORM)
    if (m_pending) return; // irq_work already claimed: this wakeup coalesces
    m_pending = true;
    sim_notify(m_irq_work, m_latency);
}

void PerfWakeup::irq_work_method() {
    m_pending = false;
    ++m_stats.wakeups_delivered;
    sim_notify(m_waitqueue);
    if (m_listener) m_listener();
}

bool PerfWakeup::perf_poll() {
    const bool was = m_poll;
    m_poll = false;
    return was;
}

} // namespace ringsim::models

namespace ringsim::models {

void declare_perf_wakeup_stats(StatRegistry& r) {
    r.counter("wakeups_delivered", "wakeups",
              "irq_work runs that woke the poll waitqueue; "
              "fewer than wakeups when they coalesce (R8)",
              &BufferStats::wakeups_delivered);
}

} // namespace ringsim::models
