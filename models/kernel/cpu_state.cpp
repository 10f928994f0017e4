#include "models/kernel/cpu_state.h"

namespace ringsim::models {

void CpuState::enter(ExecContext level) {
    const auto l = static_cast<unsigned>(level);
    for (;;) {
        bool blocked = false;
        for (unsigned i = l; i < m_active.size(); ++i) blocked |= m_active[i];
        if (!blocked) break;
        sc_core::wait(m_left);
    }
    m_active[l] = true;
    m_stolen[l] = sc_core::SC_ZERO_TIME;
}

void CpuState::leave(ExecContext level, sc_core::sc_time ran) {
    const auto l = static_cast<unsigned>(level);
    m_active[l] = false;
    for (unsigned i = 0; i < l; ++i)
        if (m_active[i]) m_stolen[i] += ran;
    m_left.notify(sc_core::SC_ZERO_TIME);
}

void CpuState::run_for(ExecContext level, sc_core::sc_time t) {
    const auto l = static_cast<unsigned>(level);
    if (t == sc_core::SC_ZERO_TIME) return; // nothing can interrupt an instant
    sc_core::wait(t);
    // Time spent in higher contexts while we waited did not run us: make it up.
    while (m_stolen[l] != sc_core::SC_ZERO_TIME) {
        const sc_core::sc_time owed = m_stolen[l];
        m_stolen[l] = sc_core::SC_ZERO_TIME;
        sc_core::wait(owed);
    }
}

} // namespace ringsim::models
