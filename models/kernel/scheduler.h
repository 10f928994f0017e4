// The scheduler as the traced workload sees it: on which CPU its task runs and when it is
// switched out.
//  - Per-CPU and system-wide sessions trace one task per CPU that never moves; a task-bound
//    session's task is switched out for `switch_out` every `switch_every`, from a seeded
//    per-CPU phase (P3: its events stop at every sched-out and start at the sched-in). A
//    system-wide session traces CPUs, not tasks: nothing switches it out.
//  - A per-thread session's one task moves to the next traced CPU every `migrate_every`,
//    but only between records: never while one of its events is writing (all writers of
//    one buffer run on one CPU at a time, R2), nor while its cs_etm event still runs there
//    (the context switch stops it, and its harvest completes, first: P2, P3).
// The context switch and the migration are full barriers: everything the task did on its
// old CPU performs before anything it does on the new one (OrderingEngine::handoff).
// Mirrors kernel/sched/core.c as far as perf_event_task_sched_out/in and
// perf_event_context_sched_{in,out} see it; leaves out load balancing and wake-up choices.
#pragma once

#include "models/common/types.h"
#include "models/kernel/task_schedule.h"

#include <string>
#include <vector>

namespace ringsim::models {

class CpuState;
class EnginePort;
class PerfBuffer;
class CsEtmEvent;

// The task a writer or an event belongs to: the one on CPU n (n >= 0) or the per-thread
// session's task.
constexpr int kPerThreadTask = -1;

struct SchedulerParams {
    std::vector<unsigned> traced; // the traced CPUs, never empty
    bool per_thread = false;      // one task, moving between the traced CPUs
    bool system_wide = false;     // CPUs traced, not tasks: never switched out
    Picos migrate_every = 0;      // per-thread: the task moves this often (0: never)
    Picos switch_every = 0;       // 0: never switched out
    Picos switch_out = 0;
    uint64_t seed = 0; // the scenario's seed: each task's phase derives from it
};

// A CPU as the scheduler hands it to a task: its contexts and its memory agent.
struct SchedCpu {
    CpuState* state = nullptr;
    EnginePort* port = nullptr;
};

class Scheduler {
public:
    // `cpus` by CPU number, every CPU of the platform.
    Scheduler(const SchedulerParams& params, std::vector<SchedCpu> cpus);

    // When `task` runs on its CPU (always, where nothing switches it out).
    const TaskSchedule& schedule(int task) const;
    // The CPU the per-thread task should be on at t (where it is once nothing pins it).
    unsigned wanted_cpu(Picos t) const;
    Picos migrate_every() const { return m_p.per_thread ? m_p.migrate_every : 0; }

    // What pins the per-thread task to its CPU: its buffer (a record being written) and its
    // cs_etm event (running). Set before the simulation starts; either may stay unset.
    void pin(const PerfBuffer* rb, const CsEtmEvent* event);

    // The CPU `task` runs on at `now`; the per-thread task is moved first when it is due
    // and nothing pins it.
    unsigned cpu_of(int task, Picos now);
    SchedCpu cpu(unsigned n) const { return m_cpus.at(n); }
    uint64_t migrations() const { return m_migrations; }

private:
    SchedulerParams m_p;
    std::vector<SchedCpu> m_cpus;
    std::vector<TaskSchedule> m_schedules; // by CPU; the per-thread task's at the end
    unsigned m_task_cpu = 0;               // per-thread: where the task runs now
    const PerfBuffer* m_pin_rb = nullptr;
    const CsEtmEvent* m_pin_event = nullptr;
    uint64_t m_migrations = 0;
};

} // namespace ringsim::models
