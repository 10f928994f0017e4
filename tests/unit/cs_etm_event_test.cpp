// CsEtmEvent on its own over a real driver, sink, AUX area and scheduler, driven by hand
// from a test thread as the tool's ioctls would drive it: it stays off until the tool's
// first PERF_EVENT_IOC_ENABLE (perf enables after its mmaps, C7), starts with
// PERF_RECORD_ITRACE_START (P4), stops at every sched-out of its task (P3), follows a
// per-thread task's migration (stopped and harvested on the old CPU before it starts on the
// new one), waits in ioc_disable_sync until it has stopped (C8), is disabled by the AUX core
// after a failed begin (A2) or a TRUNCATED harvest (A6, through the irq_work) and re-enabled
// by the tool (A9), and books the time its task ran untraced under the right cause.
//
// Common numbers: each ETM at 1e8 B/s, so C(t) = floor(t / 80'000) and a session from t0 to
// t1 holds 25 + 8 * (C(t1) - C(t0)) bytes (the ETMv4 start block, then count packets),
// ceil(that / 14) frames of 16 bytes in the sink; an IPI takes 1 us, the irq_work 2 us, the
// ETR flush 1 us, and the driver copies at 1e12 B/s (n bytes in n ps), so a harvest of a
// session ends kFlush + its bytes in ps after the stop.
#include "models/coresight/etr_sink.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/cs_etm_driver.h"
#include "models/kernel/cs_etm_event.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/scheduler.h"
#include "models/memory/engine_port.h"

#include "tests/support/trace_test_kit.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <vector>

using namespace ringsim::models;
using namespace ringsim::models::coresight;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {

using ringsim::test::Bytes;
using ringsim::test::Loss;
using ringsim::test::now;
using ringsim::test::wait_until;
using Records = ringsim::test::StoredRecords;

constexpr Picos kUs = 1'000'000;
constexpr Picos kIpi = 1 * kUs;
constexpr Picos kIrqWork = 2 * kUs;
constexpr Picos kFlush = 1 * kUs;

// C(t) at 1e8 B/s: one 8-byte count packet every 80'000 ps.
uint64_t count_at(Picos t) {
    return t / 80'000;
}
// What a lone ETM's session [t0, t1) commits: its frames (all full but the last), and the
// time from the stop to the commit.
uint64_t harvest_bytes(Picos t0, Picos t1) {
    const uint64_t bytes = kStartSize + 8 * (count_at(t1) - count_at(t0));
    return (bytes + 13) / 14 * 16;
}
Picos harvest_time(Picos t0, Picos t1) {
    return kFlush + harvest_bytes(t0, t1);
}

// The first sched-in of a switched task strictly after t.
Picos next_sched_in(const TaskSchedule& s, Picos t) {
    Picos c = s.next_change(t);
    while (!s.in(c))
        c = s.next_change(c);
    return c;
}

// Every commit the driver made, as the checker would hear it.
struct Recorder : TraceObserver {
    std::vector<AuxCommit> commits;
    uint64_t lost = 0;
    void on_trace_lost(uint8_t, uint64_t, uint64_t n, TraceLoss) override { lost += n; }
    void on_aux_commit(AuxCommit c) override { commits.push_back(std::move(c)); }
};

struct Script : sc_core::sc_module {
    SC_HAS_PROCESS(Script);
    std::function<void()> body;
    Script(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() {
        body();
        // The event wakes at every schedule change, for ever: the test's end is the run's.
        sc_core::sc_stop();
    }
};

// Two CPUs with their ETMs (0x10, 0x11) on one sink, one event buffer with its AUX area,
// the scheduler, the driver and the event tracing `task`.
struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    EnginePort& etr_port = mem.agent("etr");
    EnginePort& tool = mem.agent("tool"); // perf record's CPU: its ioctls and AUX reads
    TraceRate rate{1e8, {}};
    std::deque<CpuState> states;
    std::deque<EtmSource> etms;
    std::vector<SchedCpu> cpus;
    BufferStats stats;
    Records records;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<PerfAux> aux;
    AuxOutput out;
    Recorder obs;
    std::unique_ptr<EtrSink> sink;
    std::unique_ptr<CsEtmDriver> driver;
    std::unique_ptr<Scheduler> sched;
    std::unique_ptr<CsEtmEvent> event;
    std::unique_ptr<Script> script;
    perf::RecordContext ctx;

    Rig(const SchedulerParams& sp, int task, uint64_t aux_bytes, Picos ipi = kIpi) {
        for (unsigned c = 0; c < 2; ++c) {
            states.emplace_back(c);
            etms.emplace_back("etm" + std::to_string(c), uint8_t(0x10 + c), rate, 0);
            cpus.push_back({&states.back(), &mem.agent("cpu" + std::to_string(c))});
        }
        PerfBufferParams bp;
        bp.name = "task";
        bp.page_size = 4096;
        bp.nr_pages = 1;
        bp.user_page = phys.allocate("up", 4096, 4096);
        bp.data = phys.allocate("data", 4096, 4096);
        rb = std::make_unique<PerfBuffer>(bp, stats);
        rb->set_observer(&records);
        PerfAuxParams ap;
        ap.name = "task.aux";
        ap.user_page = bp.user_page;
        ap.aux_size = aux_bytes;
        aux = std::make_unique<PerfAux>(ap);
        out = {0, rb.get(), aux.get(), phys.allocate("aux", aux_bytes, 4096), aux_bytes};

        EtrSinkParams ep;
        ep.buffer_bytes = 16384;
        ep.flat_base = phys.allocate("etr", ep.buffer_bytes, 4096);
        ep.mem_bandwidth = 1e12;
        ep.fifo_bytes = 4096;
        ep.flush_latency = kFlush;
        ep.burst = 1024;
        sink = std::make_unique<EtrSink>("etr", ep, etr_port, obs);
        for (EtmSource& e : etms)
            sink->attach(&e);
        CsEtmDriverParams dp;
        dp.copy_bandwidth = 1e12;
        driver = std::make_unique<CsEtmDriver>(dp, obs);
        sched = std::make_unique<Scheduler>(sp, cpus);
        CsEtmEventParams p;
        p.irq_work_latency = kIrqWork;
        p.ipi_latency = ipi;
        p.ctx.pid = 100;
        p.ctx.tid = 101;
        p.ctx.id = 7;
        event = std::make_unique<CsEtmEvent>("cs_etm", p, *driver, *sink, out, *sched, task,
                                             std::vector<EtmSource*>{&etms[0], &etms[1]});
        if (task == kPerThreadTask) sched->pin(nullptr, event.get());
    }
    void run(std::function<void()> body) {
        script = std::make_unique<Script>("script", std::move(body));
        // The script ends the run with sc_stop() on purpose: not news worth printing.
        sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                                sc_core::SC_DO_NOTHING);
        sc_core::sc_start();
    }
    const CsEtmEventCounters& n() const { return event->counters(); }
    const CsEtmCounters& d() const { return driver->counters(); }
    uint64_t aux_head() { return tool.load(rb->params().user_page + perf::kOffAuxHead, 8); }
    // The tool's AUX read up to `tail`: its store of aux_tail (D), from its own CPU.
    void consume_aux(uint64_t tail) {
        tool.store(rb->params().user_page + perf::kOffAuxTail, tail, 8);
    }
    // Another commit fills the AUX area to its last byte (CIRC_SPACE 0).
    void fill_aux() {
        PerfAux::Handle h;
        aux->output_begin(h, *cpus[0].port, *rb);
        aux->output_end(h, *cpus[0].port, out.aux_size - 1, *rb, ctx);
    }
};

SchedulerParams cpu0_never_switched() {
    SchedulerParams p;
    p.traced = {0};
    return p;
}

// CPU 0's task in for 80 us of every 100 us, at a phase seeded from 5.
SchedulerParams cpu0_switched() {
    SchedulerParams p;
    p.traced = {0};
    p.switch_every = 100 * kUs;
    p.switch_out = 20 * kUs;
    p.seed = 5;
    return p;
}

} // namespace

// The event is created disabled: nothing runs until the tool's PERF_EVENT_IOC_ENABLE, sent
// at 20 us, reaches CPU 0 at 21 us (P1). Then PERF_RECORD_ITRACE_START {pid, tid} (P4) and
// AUX_OUTPUT_HW_ID (P1) go to the data buffer. The first enable is not a re-enable (A9).
TEST(CsEtmEvent, StaysOffUntilTheToolEnablesIt) {
    Rig r(cpu0_never_switched(), 0, 16384);
    bool running_before = true, etm_before = true;
    uint64_t starts_before = 1, captures_before = 1;
    size_t records_before = 1;
    bool running_after = false;
    r.run([&] {
        wait_until(20 * kUs);
        running_before = r.event->running();
        etm_before = r.etms[0].running();
        starts_before = r.d().starts;
        captures_before = r.sink->captures();
        records_before = r.records.stored.size();
        r.event->ioc_enable();
        wait_until(22 * kUs);
        running_after = r.event->running();
        r.event->end(r.tool);
    });
    EXPECT_FALSE(running_before);
    EXPECT_FALSE(etm_before);
    EXPECT_EQ(starts_before, 0u);
    EXPECT_EQ(captures_before, 0u);
    EXPECT_EQ(records_before, 0u);
    EXPECT_TRUE(running_after);
    EXPECT_EQ(r.etms[0].started_at(), 21 * kUs);
    ASSERT_GE(r.records.stored.size(), 2u);
    EXPECT_EQ(r.records.type(0), uint32_t(PERF_RECORD_ITRACE_START));
    EXPECT_EQ(r.records.field(0, 0), 100u | (uint64_t{101} << 32)); // pid, tid
    EXPECT_EQ(r.records.type(1), uint32_t(PERF_RECORD_AUX_OUTPUT_HW_ID));
    EXPECT_EQ(r.records.field(1, 0), 0x10u);
    EXPECT_EQ(r.d().starts, 1u);
    EXPECT_EQ(r.n().reenables, 0u);
    EXPECT_EQ(r.n().kernel_disables, 0u);
}

// C8: PERF_EVENT_IOC_DISABLE at 50 us reaches CPU 0 at 51 us; the stop harvests 25 + 8 *
// (C(51 us) - C(2 us)) = 25 + 8 * (637 - 25) = 4921 bytes = 352 frames = 5632 bytes (TMCReady
// at 52 us, copied by 52 us + 5632 ps) and only then does ioc_disable_sync return, with the
// commit's aux_head visible to the tool. The tool's enable after its snapshot restarts it
// 1 us later without counting a re-enable (nothing disabled it but the tool), and the time
// its task ran with the event off is untraced (stop_window): C(53 us + 5632 ps) - C(51 us) =
// 662 - 637 = 25 counts. end() at 60 us stops it at 61 us (a session of 25 + 8 * (762 - 662)
// = 825 bytes, 59 frames: 944 bytes) and returns at 62 us + 944 ps. After end(), an enable
// does nothing.
TEST(CsEtmEvent, IocDisableSyncReturnsOnceTheEventHasStopped) {
    Rig r(cpu0_never_switched(), 0, 16384);
    Picos returned = 0, end_returned = 0;
    bool running_at_return = true, running_after_enable = false, running_after_end = true;
    uint64_t stops_at_return = 0, head_at_return = 0;
    size_t commits_at_return = 0;
    r.run([&] {
        wait_until(1 * kUs);
        r.event->ioc_enable();
        wait_until(50 * kUs);
        r.event->ioc_disable_sync(r.tool);
        returned = now();
        running_at_return = r.event->running();
        stops_at_return = r.d().stops;
        commits_at_return = r.obs.commits.size();
        head_at_return = r.aux_head();
        r.event->ioc_enable();
        wait_until(55 * kUs);
        running_after_enable = r.event->running();
        wait_until(60 * kUs);
        r.event->end(r.tool);
        end_returned = now();
        r.event->ioc_enable();
        wait_until(70 * kUs);
        running_after_end = r.event->running();
    });
    EXPECT_EQ(returned, 52 * kUs + 5632);
    EXPECT_FALSE(running_at_return);
    EXPECT_EQ(stops_at_return, 1u);
    EXPECT_EQ(commits_at_return, 1u);
    EXPECT_EQ(head_at_return, 5632u);
    EXPECT_EQ(r.etms[0].stopped_at(), 61 * kUs); // the last stop, from end()
    ASSERT_EQ(r.obs.commits.size(), 2u);
    EXPECT_EQ(r.obs.commits[0].size, 5632u);
    EXPECT_EQ(r.obs.commits[0].at, 52 * kUs + 5632);
    EXPECT_EQ(r.obs.commits[1].size, 944u);
    EXPECT_TRUE(running_after_enable);
    EXPECT_EQ(r.etms[0].started_at(), 53 * kUs + 5632);
    EXPECT_EQ(end_returned, 62 * kUs + 944);
    EXPECT_FALSE(running_after_end);
    EXPECT_EQ(r.d().starts, 2u);
    EXPECT_EQ(r.d().stops, 2u);
    EXPECT_EQ(r.n().reenables, 0u);
    EXPECT_EQ(r.n().sched_outs, 0u);
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::stop_window), 25u);
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::aux_disabled), 0u);
}

// P3: a task-bound event stops at every sched-out of its task and starts at every sched-in.
// The task (in 80 us of every 100) is enabled at a sched-in T (seeded), so the event runs
// [T + 1 us, T + 80 us), [T + 100, T + 180), [T + 200, T + 251) (end at T + 250 us). Each
// stop's harvest commits its flush and copy after it. A switch-out is not untraced trace:
// the ETM's two windows off are exactly the times the task was out.
TEST(CsEtmEvent, ATaskBoundEventStopsAtEachSchedOut) {
    Rig r(cpu0_switched(), 0, 65536);
    const TaskSchedule& s = r.sched->schedule(0);
    const Picos t = next_sched_in(s, 0);
    ASSERT_TRUE(s.in(t));
    ASSERT_FALSE(s.in(t - 1));
    r.run([&] {
        wait_until(t);
        r.event->ioc_enable();
        wait_until(t + 250 * kUs);
        r.event->end(r.tool);
    });
    EXPECT_EQ(r.n().sched_outs, 2u);
    EXPECT_EQ(r.d().starts, 3u);
    EXPECT_EQ(r.d().stops, 3u);
    EXPECT_EQ(r.etms[0].started_at(), t + 200 * kUs);
    ASSERT_EQ(r.obs.commits.size(), 3u);
    EXPECT_EQ(r.obs.commits[0].at, t + 80 * kUs + harvest_time(t + 1 * kUs, t + 80 * kUs));
    EXPECT_EQ(r.obs.commits[1].at, t + 180 * kUs + harvest_time(t + 100 * kUs, t + 180 * kUs));
    EXPECT_EQ(r.obs.commits[2].at, t + 251 * kUs + harvest_time(t + 200 * kUs, t + 251 * kUs));
    // The second session's bytes: a new capture, C(T + 100 us) .. C(T + 180 us).
    const uint64_t second = kStartSize + 8 * (count_at(t + 180 * kUs) - count_at(t + 100 * kUs));
    ASSERT_EQ(r.obs.commits[1].runs.size(), 1u);
    EXPECT_EQ(r.obs.commits[1].runs[0].src_bytes, second);
    EXPECT_EQ(r.obs.lost, 0u);
    // ITRACE_START at every sched-in (P4), HW_ID once, a PERF_RECORD_AUX per harvest.
    EXPECT_EQ(r.records.count(PERF_RECORD_ITRACE_START), 3u);
    EXPECT_EQ(r.records.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
    EXPECT_EQ(r.records.count(PERF_RECORD_AUX), 3u);
    const auto& w = r.etms[0].untraced();
    ASSERT_EQ(w.size(), 2u);
    for (unsigned i = 0; i < 2; ++i) {
        const Picos out = t + (100 * i + 80) * kUs, in = t + (100 * i + 100) * kUs;
        EXPECT_EQ(w[i].first_count, count_at(out)) << i;
        EXPECT_EQ(w[i].counts, count_at(in) - count_at(out)) << i;
        EXPECT_EQ(w[i].cause, UntracedCause::stop_window) << i;
    }
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::stop_window), 0u);
    EXPECT_EQ(r.n().kernel_disables, 0u);
}

// A per-thread task on CPUs {0, 1}, moving every 50 us. The event starts on CPU 0 at 2 us;
// at 50 us the task should be on CPU 1: the event stops on CPU 0 and harvests CPU 0's trace
// only, 25 + 8 * (625 - 25) = 4825 bytes in 345 frames (5520 bytes, done at 51 us + 5520
// ps), before the task moves and the event starts on CPU 1, with its own AUX_OUTPUT_HW_ID
// (0x11) and ITRACE_START. The move is not a sched-out; the harvest the task waited for is
// untraced on CPU 1's ETM: C(51 us + 5520 ps) - C(50 us) = 637 - 625 = 12 counts.
TEST(CsEtmEvent, APerThreadEventFollowsItsTasksMigration) {
    SchedulerParams sp;
    sp.traced = {0, 1};
    sp.per_thread = true;
    sp.migrate_every = 50 * kUs;
    Rig r(sp, kPerThreadTask, 16384);
    uint64_t migrations_before = 1, migrations_after = 0;
    bool etm0_at_51 = true, etm1_at_51 = false;
    r.run([&] {
        wait_until(1 * kUs);
        r.event->ioc_enable();
        wait_until(49 * kUs);
        migrations_before = r.sched->migrations();
        wait_until(52 * kUs);
        migrations_after = r.sched->migrations();
        etm0_at_51 = r.etms[0].running();
        etm1_at_51 = r.etms[1].running();
        wait_until(70 * kUs);
        r.event->end(r.tool);
    });
    EXPECT_EQ(migrations_before, 0u);
    EXPECT_EQ(migrations_after, 1u);
    EXPECT_FALSE(etm0_at_51);
    EXPECT_TRUE(etm1_at_51);
    EXPECT_EQ(r.etms[0].started_at(), 2 * kUs);
    EXPECT_EQ(r.etms[0].stopped_at(), 50 * kUs);
    EXPECT_EQ(r.etms[1].started_at(), 51 * kUs + 5520);
    EXPECT_EQ(r.etms[1].stopped_at(), 71 * kUs);
    ASSERT_EQ(r.obs.commits.size(), 2u);
    EXPECT_EQ(r.obs.commits[0].at, 51 * kUs + 5520);
    EXPECT_EQ(r.obs.commits[0].size, 5520u);
    ASSERT_EQ(r.obs.commits[0].runs.size(), 1u);
    EXPECT_EQ(r.obs.commits[0].runs[0].trace_id, 0x10);
    EXPECT_EQ(r.obs.commits[0].runs[0].src_bytes, 4825u);
    ASSERT_EQ(r.obs.commits[1].runs.size(), 1u);
    EXPECT_EQ(r.obs.commits[1].runs[0].trace_id, 0x11);
    EXPECT_EQ(r.obs.commits[1].runs[0].src_bytes,
              kStartSize + 8 * (count_at(71 * kUs) - count_at(51 * kUs + 5520)));
    EXPECT_EQ(r.sink->captures(), 2u);
    EXPECT_EQ(r.records.types(),
              (std::vector<uint32_t>{PERF_RECORD_ITRACE_START, PERF_RECORD_AUX_OUTPUT_HW_ID,
                                     PERF_RECORD_AUX, PERF_RECORD_ITRACE_START,
                                     PERF_RECORD_AUX_OUTPUT_HW_ID, PERF_RECORD_AUX}));
    EXPECT_EQ(r.records.field(1, 0), 0x10u);
    EXPECT_EQ(r.records.field(4, 0), 0x11u);
    EXPECT_EQ(r.n().sched_outs, 0u);
    EXPECT_EQ(r.d().starts, 2u);
    EXPECT_EQ(r.d().stops, 2u);
    EXPECT_EQ(r.etms[1].untraced_counts(UntracedCause::stop_window), 12u);
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::stop_window), 0u);
}

// A2 then A6 then A9: the AUX area is full when the tool's enable reaches CPU 0 (2 us):
// perf_aux_output_begin fails, nothing starts, and the irq_work disables the event at 4 us
// (counted once). The tool reads the area (aux_tail = 4095) and enables at 10 us: at 11 us
// the event is re-enabled (counted) and starts with the whole room.
TEST(CsEtmEvent, AFullAuxAreaAtStartDisablesTheEventUntilTheToolReenablesIt) {
    Rig r(cpu0_never_switched(), 0, 4096);
    uint64_t failures_at_3 = 0, disables_at_3 = 1, disables_at_5 = 0, reenables_at_5 = 1;
    bool running_at_5 = true, running_at_12 = false;
    r.run([&] {
        r.fill_aux();
        wait_until(1 * kUs);
        r.event->ioc_enable();
        wait_until(3 * kUs);
        failures_at_3 = r.d().begin_failures;
        disables_at_3 = r.n().kernel_disables;
        wait_until(5 * kUs);
        disables_at_5 = r.n().kernel_disables;
        reenables_at_5 = r.n().reenables;
        running_at_5 = r.event->running();
        wait_until(10 * kUs);
        r.consume_aux(4095);
        r.event->ioc_enable();
        wait_until(12 * kUs);
        running_at_12 = r.event->running();
        wait_until(20 * kUs);
        r.event->end(r.tool);
    });
    EXPECT_EQ(failures_at_3, 1u);
    EXPECT_EQ(disables_at_3, 0u); // the irq_work has not run yet
    EXPECT_EQ(disables_at_5, 1u);
    EXPECT_EQ(reenables_at_5, 0u);
    EXPECT_FALSE(running_at_5);
    EXPECT_TRUE(running_at_12);
    EXPECT_EQ(r.etms[0].started_at(), 11 * kUs);
    EXPECT_EQ(r.n().kernel_disables, 1u);
    EXPECT_EQ(r.n().reenables, 1u);
    EXPECT_EQ(r.d().starts, 2u);
    EXPECT_EQ(r.d().begin_failures, 1u);
    EXPECT_EQ(r.sink->captures(), 1u); // the failed start never touched the sink
    EXPECT_EQ(r.records.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
}

// A6, D2, A9 at a sched-out: enabled at the sched-in T, the event runs [T + 1 us, T + 80 us),
// 79 us of trace (at least 7900 bytes) for a 4 KiB AUX area: the harvest keeps 4080 bytes
// and flags TRUNCATED, and the irq_work disables the event 2 us after the harvest (1 us of
// flush, 4080 ps of copy): at T + 83 us + 4080 ps. So the sched-in at T + 100 us starts
// nothing. The tool reads
// (aux_tail = 4080) and enables at T + 110 us: re-enabled at T + 111 us. Its task ran from
// T + 100 us with the event off: those counts are untraced for aux_disabled, and the ETM's
// window off says why.
TEST(CsEtmEvent, ATruncatedHarvestDisablesTheEventUntilTheToolReenablesIt) {
    Rig r(cpu0_switched(), 0, 4096);
    const TaskSchedule& s = r.sched->schedule(0);
    const Picos t = next_sched_in(s, 0);
    uint64_t disables_at_82 = 1, disables_at_84 = 0, starts_at_110 = 0;
    bool running_at_110 = true;
    r.run([&] {
        wait_until(t);
        r.event->ioc_enable();
        wait_until(t + 82 * kUs);
        disables_at_82 = r.n().kernel_disables;
        wait_until(t + 84 * kUs);
        disables_at_84 = r.n().kernel_disables;
        wait_until(t + 110 * kUs);
        starts_at_110 = r.d().starts;
        running_at_110 = r.event->running();
        r.consume_aux(r.aux_head());
        r.event->ioc_enable();
        wait_until(t + 130 * kUs);
        r.event->end(r.tool);
    });
    ASSERT_GE(r.obs.commits.size(), 1u);
    EXPECT_EQ(r.obs.commits[0].size, 4080u);
    EXPECT_EQ(r.obs.commits[0].flags, uint64_t(PERF_AUX_FLAG_TRUNCATED));
    EXPECT_EQ(r.obs.commits[0].at, t + 81 * kUs + 4080);
    EXPECT_EQ(disables_at_82, 0u);
    EXPECT_EQ(disables_at_84, 1u);
    EXPECT_EQ(starts_at_110, 1u); // the sched-in at T + 100 us found the event disabled
    EXPECT_FALSE(running_at_110);
    EXPECT_EQ(r.etms[0].started_at(), t + 111 * kUs);
    EXPECT_EQ(r.n().sched_outs, 1u);
    EXPECT_EQ(r.n().kernel_disables, 1u);
    EXPECT_EQ(r.n().reenables, 1u);
    EXPECT_EQ(r.d().truncated, 1u);
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::aux_disabled),
              count_at(t + 111 * kUs) - count_at(t + 100 * kUs));
    EXPECT_EQ(r.etms[0].untraced_counts(UntracedCause::stop_window), 0u);
    ASSERT_EQ(r.etms[0].untraced().size(), 1u);
    EXPECT_EQ(r.etms[0].untraced()[0].first_count, count_at(t + 80 * kUs));
    EXPECT_EQ(r.etms[0].untraced()[0].counts, count_at(t + 111 * kUs) - count_at(t + 80 * kUs));
    EXPECT_EQ(r.etms[0].untraced()[0].cause, UntracedCause::aux_disabled);
    // The second session (T + 111 .. T + 131 us, about 2000 bytes) fit: no second flag.
    ASSERT_EQ(r.obs.commits.size(), 2u);
    EXPECT_EQ(r.obs.commits[1].flags, 0u);
}

// Found by the tests above being written: an ioctl landing at time 0 (an IPI latency of 0
// at the start) was taken for "no ioctl pending" and dropped, so the event never started.
TEST(CsEtmEvent, AnEnableLandingAtTimeZeroIsNotLost) {
    SchedulerParams sp;
    sp.traced = {0};
    Rig r(sp, 0, 16384, /*ipi=*/0);
    bool running = false;
    r.run([&] {
        r.event->ioc_enable(); // at 0, landing at 0
        wait_until(10 * kUs);
        running = r.event->running();
        r.event->end(r.tool);
    });
    EXPECT_TRUE(running);
    EXPECT_EQ(r.d().starts, 1u);
    EXPECT_EQ(r.etms[0].started_at(), 0u);
}

// A per-thread task pinned to its CPU by a record in flight (R2) moves at the first retry
// after the record ends; meanwhile its event stays off rather than starting on the old CPU
// and stopping again at once (which wrote an ITRACE_START, a harvest and a PERF_RECORD_AUX
// per retry).
TEST(CsEtmEvent, APinnedMoveStartsNothingUntilTheTaskHasMoved) {
    SchedulerParams sp;
    sp.traced = {0, 1};
    sp.per_thread = true;
    sp.migrate_every = 50 * kUs;
    Rig r(sp, kPerThreadTask, 16384);
    r.sched->pin(r.rb.get(), r.event.get());
    bool begun = false;
    r.run([&] {
        wait_until(1 * kUs);
        r.event->ioc_enable();
        wait_until(49 * kUs + kUs / 2);
        PerfBuffer::Handle h; // a record of the task's, written on CPU 0 until 55 us
        begun = r.rb->output_begin(h, *r.cpus[0].port, r.ctx, 64);
        wait_until(55 * kUs);
        r.rb->output_record(h, *r.cpus[0].port, Bytes(64, 0));
        r.rb->output_end(h, *r.cpus[0].port);
        wait_until(70 * kUs);
        r.event->end(r.tool);
    });
    ASSERT_TRUE(begun);
    // Stopped at 50 us and harvested by 51 us + 5520 ps; retried every 1 us from there, the
    // move happens at the first retry after 55 us.
    EXPECT_EQ(r.etms[0].stopped_at(), 50 * kUs);
    EXPECT_EQ(r.etms[1].started_at(), 55 * kUs + 5520);
    EXPECT_EQ(r.d().starts, 2u);
    EXPECT_EQ(r.d().stops, 2u);
    EXPECT_EQ(r.records.count(PERF_RECORD_ITRACE_START), 2u);
    EXPECT_EQ(r.records.count(PERF_RECORD_AUX), 2u);
    EXPECT_EQ(r.sched->migrations(), 1u);
}

// The AUX core's pending disable (A6, after a TRUNCATED harvest) landing on an event the
// tool has already disabled does nothing, and is not counted (perf_event_disable_local).
TEST(CsEtmEvent, ADisableLandingAfterTheEndIsNotCounted) {
    SchedulerParams sp;
    sp.traced = {0};
    Rig r(sp, 0, 4096);
    uint64_t flags = 0;
    r.run([&] {
        wait_until(1 * kUs);
        r.event->ioc_enable();
        wait_until(80 * kUs);
        r.event->end(r.tool); // its harvest overflows the 4 KiB AUX area: TRUNCATED
        flags = r.obs.commits.empty() ? 0 : r.obs.commits.back().flags;
        wait_until(90 * kUs);
    });
    EXPECT_NE(flags & PERF_AUX_FLAG_TRUNCATED, 0u);
    EXPECT_EQ(r.n().kernel_disables, 0u);
}
