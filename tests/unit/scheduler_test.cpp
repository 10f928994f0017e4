// The scheduler as the traced workload sees it (scheduler.h: P3 switch-outs, the per-thread
// task's migrations pinned by R2 and P2/P3), on its own: no SystemC process runs.
#include "models/kernel/cpu_state.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/scheduler.h"
#include "models/memory/engine_port.h"

#include <gtest/gtest.h>

using namespace ringsim::models;

namespace {

constexpr Picos kUs = 1000000;

struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::arm, TimingPolicy::adversarial, 1};
    std::deque<CpuState> states;
    std::vector<SchedCpu> cpus;
    explicit Rig(unsigned n, TimingBounds bounds = {}) {
        for (unsigned c = 0; c < n; ++c) {
            states.emplace_back(c);
            cpus.push_back({&states.back(), &mem.agent("cpu" + std::to_string(c), bounds)});
        }
    }
};

SchedulerParams per_thread(std::vector<unsigned> traced, Picos every) {
    SchedulerParams p;
    p.traced = std::move(traced);
    p.per_thread = true;
    p.migrate_every = every;
    return p;
}

TEST(Scheduler, APerCpuTaskStaysOnItsCpu) {
    Rig r(4);
    SchedulerParams p;
    p.traced = {1, 3};
    Scheduler s(p, r.cpus);
    for (Picos t : {Picos(0), 5 * kUs, 1000 * kUs}) {
        EXPECT_EQ(s.cpu_of(1, t), 1u);
        EXPECT_EQ(s.cpu_of(3, t), 3u);
    }
    EXPECT_EQ(s.cpu(3).state, &r.states[3]);
    EXPECT_EQ(s.migrations(), 0u);
}

TEST(Scheduler, TaskBoundSessionsSwitchOutAtASeededPhasePerCpu) {
    Rig r(2);
    SchedulerParams p;
    p.traced = {0, 1};
    p.switch_every = 100 * kUs;
    p.switch_out = 30 * kUs;
    p.seed = 7;
    Scheduler s(p, r.cpus);
    for (int task : {0, 1}) {
        const TaskSchedule& k = s.schedule(task);
        EXPECT_EQ(k.every, 100 * kUs);
        EXPECT_EQ(k.out, 30 * kUs);
        EXPECT_LT(k.phase, k.every);
        // Out 30% of every period, wherever the phase puts it.
        Picos out = 0;
        for (Picos t = 0; t < k.every; t += kUs)
            out += k.in(t) ? 0 : kUs;
        EXPECT_EQ(out, 30 * kUs);
    }
    // Each CPU's phase has its own seeded stream: the two do not switch in lockstep, and
    // the same seed gives the same phases.
    EXPECT_NE(s.schedule(0).phase, s.schedule(1).phase);
    Scheduler again(p, r.cpus);
    EXPECT_EQ(again.schedule(1).phase, s.schedule(1).phase);
    EXPECT_NE(s.schedule(kPerThreadTask).phase, s.schedule(0).phase);
}

TEST(Scheduler, SystemWideSessionsAreNeverSwitchedOut) {
    Rig r(2);
    SchedulerParams p;
    p.traced = {0, 1};
    p.system_wide = true;
    p.switch_every = 100 * kUs;
    p.switch_out = 30 * kUs;
    Scheduler s(p, r.cpus);
    for (Picos t = 0; t < 200 * kUs; t += kUs)
        EXPECT_TRUE(s.schedule(0).in(t));
}

TEST(Scheduler, ThePerThreadTaskVisitsTheTracedCpusInTurn) {
    Rig r(4);
    Scheduler s(per_thread({2, 0, 3}, 10 * kUs), r.cpus);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 0), 2u);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 9 * kUs), 2u);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 10 * kUs), 0u);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 25 * kUs), 3u);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 30 * kUs), 2u);
    EXPECT_EQ(s.migrations(), 3u);
    EXPECT_EQ(s.wanted_cpu(45 * kUs), 0u);
    // Without migrate_every it never moves from the first traced CPU.
    Scheduler still(per_thread({2, 0, 3}, 0), r.cpus);
    EXPECT_EQ(still.cpu_of(kPerThreadTask, 1000 * kUs), 2u);
    EXPECT_EQ(still.migrate_every(), 0u);
}

TEST(Scheduler, ARecordBeingWrittenPinsTheTaskToItsCpu) {
    // R2: all writers of one buffer run on one CPU at a time; the task moves only between
    // records, at the first look after the record ends.
    Rig r(2);
    PerfBufferParams bp;
    bp.name = "task";
    bp.page_size = 4096;
    bp.nr_pages = 1;
    bp.user_page = r.phys.allocate("up", 4096, 4096);
    bp.data = r.phys.allocate("data", 4096, 4096);
    BufferStats stats;
    PerfBuffer rb(bp, stats);
    rb.init_userpage(*r.cpus[0].port);
    Scheduler s(per_thread({0, 1}, 10 * kUs), r.cpus);
    s.pin(&rb, nullptr);

    perf::RecordContext ctx;
    PerfBuffer::Handle h;
    ASSERT_TRUE(rb.output_begin(h, *r.cpus[0].port, ctx, 64));
    ASSERT_TRUE(rb.writer_active());
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 10 * kUs), 0u); // due, but pinned
    EXPECT_EQ(s.migrations(), 0u);
    rb.output_record(h, *r.cpus[0].port, std::vector<uint8_t>(64, 0));
    rb.output_end(h, *r.cpus[0].port);
    EXPECT_EQ(s.cpu_of(kPerThreadTask, 11 * kUs), 1u);
    EXPECT_EQ(s.migrations(), 1u);
}

TEST(Scheduler, AMigrationIsAFullBarrierBetweenTheTwoCpus) {
    // Under arm a store may perform late (here 1 us after issue on every CPU but CPU 1,
    // whose stores perform at once): what the task stored on its old CPU performs before
    // anything it does on the new one.
    Rig r(2);
    TimingBounds slow;
    slow.store_drain_max = kUs;
    PhysicalMemory& phys = r.phys;
    const Addr a = phys.allocate("x", 64, 64);
    EnginePort& cpu0 = r.mem.agent("slow0", slow);
    EnginePort& cpu1 = *r.cpus[1].port;
    std::vector<SchedCpu> cpus{{&r.states[0], &cpu0}, {&r.states[1], &cpu1}};

    auto perform_gap = [&](bool migrate) {
        Scheduler s(per_thread({0, 1}, migrate ? 10 * kUs : 0), cpus);
        EXPECT_EQ(s.cpu_of(kPerThreadTask, 0), 0u);
        const uint8_t one = 1, two = 2;
        const uint64_t old_store = cpu0.store_bytes(a, &one, 1, false, Barrier::none);
        EXPECT_EQ(s.cpu_of(kPerThreadTask, 10 * kUs), migrate ? 1u : 0u);
        const uint64_t new_store = cpu1.store_bytes(a + 8, &two, 1, false, Barrier::none);
        const OrderingEngine& e = r.mem.engine();
        return int64_t(e.store_record(new_store)->perform) -
               int64_t(e.store_record(old_store)->perform);
    };
    EXPECT_LT(perform_gap(false), 0); // the control: CPU 1's store passes CPU 0's
    EXPECT_GE(perform_gap(true), 0);
}

} // namespace
