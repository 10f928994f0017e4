#include "models/kernel/scheduler.h"

#include "models/common/rng.h"
#include "models/kernel/cs_etm_event.h"
#include "models/kernel/perf_buffer.h"
#include "models/memory/engine_port.h"

#include <stdexcept>

namespace ringsim::models {

Scheduler::Scheduler(const SchedulerParams& params, std::vector<SchedCpu> cpus)
    : m_p(params), m_cpus(std::move(cpus)) {
    if (m_p.traced.empty()) throw std::invalid_argument("Scheduler: no traced CPU");
    for (unsigned c : m_p.traced)
        if (c >= m_cpus.size()) throw std::invalid_argument("Scheduler: traced CPU out of range");
    m_task_cpu = m_p.traced.front();
    // Each task switches at its own seeded phase, so that CPUs do not switch in lockstep.
    auto make = [this](const std::string& name) {
        TaskSchedule s;
        if (m_p.system_wide || !m_p.switch_every) return s;
        s.every = m_p.switch_every;
        s.out = m_p.switch_out;
        s.phase = Rng(derive_seed(m_p.seed, name)).below(s.every);
        return s;
    };
    for (unsigned c = 0; c < m_cpus.size(); ++c)
        m_schedules.push_back(make("sched.cpu" + std::to_string(c)));
    m_schedules.push_back(make("sched.task"));
}

const TaskSchedule& Scheduler::schedule(int task) const {
    return task < 0 ? m_schedules.back() : m_schedules.at(unsigned(task));
}

unsigned Scheduler::wanted_cpu(Picos t) const {
    if (!m_p.per_thread || !m_p.migrate_every) return m_p.traced.front();
    return m_p.traced[(t / m_p.migrate_every) % m_p.traced.size()];
}

void Scheduler::pin(const PerfBuffer* rb, const CsEtmEvent* event) {
    m_pin_rb = rb;
    m_pin_event = event;
}

unsigned Scheduler::cpu_of(int task, Picos now) {
    if (task >= 0) return unsigned(task);
    const unsigned wanted = wanted_cpu(now);
    if (wanted == m_task_cpu) return m_task_cpu;
    const bool writing = m_pin_rb && m_pin_rb->writer_active();
    const bool tracing = m_pin_event && m_pin_event->running();
    if (writing || tracing) return m_task_cpu;
    EnginePort* from = m_cpus.at(m_task_cpu).port;
    EnginePort* to = m_cpus.at(wanted).port;
    from->engine().handoff(from->agent(), to->agent());
    m_task_cpu = wanted;
    ++m_migrations;
    return m_task_cpu;
}

} // namespace ringsim::models
