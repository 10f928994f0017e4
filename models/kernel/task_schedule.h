// When the traced task runs on a CPU: it is switched out for `out` every `every`, from a
// per-CPU phase so that CPUs do not switch in lockstep (P3: a task-bound event stops at
// every sched-out and starts again at the sched-in). every == 0: never switched out.
#pragma once

#include "models/common/types.h"

namespace ringsim::models {

struct TaskSchedule {
    Picos every = 0;
    Picos out = 0;
    Picos phase = 0; // in [0, every)

    bool in(Picos t) const {
        if (!every) return true;
        return (t + phase) % every < every - out;
    }
    // The next time after t at which in() changes; 0: never.
    Picos next_change(Picos t) const {
        if (!every) return 0;
        const Picos x = (t + phase) % every;
        const Picos to_out = every - out;
        return x < to_out ? t + (to_out - x) : t + (every - x);
    }
};

} // namespace ringsim::models
