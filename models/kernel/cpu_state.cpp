#include "models/kernel/cpu_state.h"
#include "models/common/sim_wait.h"

namespace ringsim::models {

void CpuState::enter(ExecContext level) {
    const auto l = static_cast<unsigned>(level);
    for (;;) {
        bool blocked = false;
        for (unsigned i = l; i < m_active.size(); ++i)
            blocked |= m_active[i];
        if (!blocked) break;
        wait_left();
    }
    m_active[l] = true;
    m_stolen[l] = 0;
    m_holder[l] = sc_core::sc_get_current_process_handle().get_process_object();
}

void CpuState::leave(ExecContext level, Picos ran) {
    const auto l = static_cast<unsigned>(level);
    m_active[l] = false;
    m_holder[l] = nullptr;
    for (unsigned i = 0; i < l; ++i)
        if (m_active[i]) m_stolen[i] += ran;
    if (m_waiting) sim_notify(m_left);
}

void CpuState::run_for(ExecContext level, Picos t) {
    const auto l = static_cast<unsigned>(level);
    if (t == 0) return; // nothing can interrupt an instant
    sim_wait(t);
    // Time spent in higher contexts while we waited did not run us: make it up.
    for (;;) {
        wait_until_on_top(l);
        if (m_stolen[l] == 0) break;
        const Picos owed = m_stolen[l];
        m_stolen[l] = 0;
        sim_wait(owed);
    }
}

void CpuState::wait_until_on_top(unsigned level) {
    for (;;) {
        bool above = false;
        for (unsigned i = level + 1; i < m_active.size(); ++i)
            above |= m_active[i];
        if (!above) return;
        wait_left();
    }
}

void CpuState::wait_left() {
    ++m_waiting;
    sim_wait(m_left);
    --m_waiting;
}

void CpuState::resume() {
    const sc_core::sc_object* me = sc_core::sc_get_current_process_handle().get_process_object();
    for (unsigned l = 0; l < m_holder.size(); ++l)
        if (m_holder[l] == me) {
            wait_until_on_top(l);
            return;
        }
}

} // namespace ringsim::models
