// The end of a run: once the perf tool is done (its last pass, after the workload exited),
// nothing more can happen that ringsim reports, so the simulation stops there rather than
// at the next event of a process still waiting (a writer's next arrival, a poll timeout).
// A listener of the consumer, added after the checkers so that their books are closed.
#pragma once

#include "models/common/sim_wait.h"
#include "models/user/perf_consumer.h"

#include <systemc>

namespace ringsim::platform {

class SessionEnd : public models::ConsumerObserver {
public:
    void on_finished() override {
        m_finished = true;
        // The consumer may be ahead of SystemC's clock (sim_wait.h): the run ends at its time.
        models::sim_sync();
        sc_core::sc_stop();
    }
    bool finished() const { return m_finished; }

private:
    bool m_finished = false;
};

} // namespace ringsim::platform
