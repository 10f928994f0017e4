// Which execution contexts are running on one simulated CPU. Linux nests contexts as
// task < softirq < irq < NMI: a higher one interrupts a lower one (which then finishes
// later by the time the interruption took), and an arrival at the same or a lower level
// waits until the CPU is back below it. Record writers use this to produce the nested
// writers of KERNEL-SEMANTICS R2/R3.
#pragma once

#include "models/common/types.h"
#include "models/kernel/exec_context.h"

#include <array>
#include <systemc>

namespace ringsim::models {

class CpuState {
public:
    explicit CpuState(unsigned id) : m_id(id) {}
    unsigned id() const { return m_id; }

    // Blocks the calling thread until no context at `level` or above runs, then enters it.
    void enter(ExecContext level);
    // Leaves `level` after `ran` of CPU time; every interrupted lower level is charged it.
    void leave(ExecContext level, Picos ran);
    // Waits `t` of CPU time at `level`, stretched by any interruption while waiting.
    void run_for(ExecContext level, Picos t);
    // After the calling thread waited for something else (a late load), it may not go on
    // while a higher context it was interrupted by is still running on this CPU.
    void resume();

private:
    void wait_until_on_top(unsigned level);
    void wait_left(); // waits for m_left, counted in m_waiting

    unsigned m_id;
    std::array<bool, 4> m_active{};
    // The writer thread running in each context (at most one per level: enter waits).
    std::array<const sc_core::sc_object*, 4> m_holder{};
    unsigned m_waiting = 0; // threads waiting for m_left: without any, leave notifies nobody
    std::array<Picos, 4> m_stolen{}; // interruption time owed to each level
    sc_core::sc_event m_left;
};

} // namespace ringsim::models
