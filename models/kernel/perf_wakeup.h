// The deferred half of a ring buffer wakeup: perf_output_wakeup sets rb->poll and queues
// an irq_work; the irq_work later wakes the poll waitqueue. Wakeups queued while the
// irq_work is still pending coalesce into one (irq_work_queue returns false).
// Mirrors kernel/events/ring_buffer.c : perf_output_wakeup and kernel/events/core.c :
// perf_pending_irq, perf_event_wakeup, perf_poll (KERNEL-SEMANTICS R8).
#pragma once

#include "models/common/buffer_stats.h"
#include "models/kernel/perf_buffer.h"

#include <systemc>

#include <functional>

namespace ringsim::models {

class PerfWakeup : public sc_core::sc_module, public WakeupSink {
public:
    SC_HAS_PROCESS(PerfWakeup);
    PerfWakeup(sc_core::sc_module_name name, Picos irq_work_latency, BufferStats& stats);

    void perf_output_wakeup() override;

    // perf_poll: xchg(rb->poll, 0), true when POLLIN was pending.
    bool perf_poll();
    bool pollin_pending() const { return m_poll; }
    // Notified when the irq_work wakes the waitqueue.
    const sc_core::sc_event& waitqueue() const { return m_waitqueue; }
    // Called at each of those wake-ups too (a waveform's listener; none by default).
    void set_listener(std::function<void()> on_wake) { m_listener = std::move(on_wake); }

private:
    void irq_work_method();

    Picos m_latency; // the irq_work latency
    BufferStats& m_stats;
    bool m_poll = false;    // rb->poll
    bool m_pending = false; // the irq_work is queued and has not run yet
    sc_core::sc_event m_irq_work;
    sc_core::sc_event m_waitqueue;
    std::function<void()> m_listener;
};

} // namespace ringsim::models
