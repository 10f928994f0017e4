// The kernel writers and the perf tool together under SystemC, with exact simulated times:
// nesting stretches the outer writer and delays data_head (R3); a watermark wakeup reaches
// the consumer after the irq_work and wake-up latencies (R6, R8) and the push path copies
// [prev, head) and releases the tail after its copy time (C4).
#include "models/check/checker.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_wakeup.h"
#include "models/kernel/record_writer.h"
#include "models/memory/engine_port.h"
#include "models/user/perf_consumer.h"

#include <gtest/gtest.h>

using namespace ringsim::models;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;

namespace {

constexpr uint64_t kSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;

struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    CpuState cpu0{0};
    BufferStats stats;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<PerfWakeup> wakeup;
    std::unique_ptr<Checker> checker;
    std::vector<std::unique_ptr<RecordWriter>> writers;
    std::unique_ptr<PerfConsumer> consumer;
    bool finished = false;
    int running = 0;

    explicit Rig(uint64_t watermark) {
        PerfBufferParams p;
        p.name = "cpu0";
        p.nr_pages = 1;
        p.user_page = phys.allocate("up", 4096, 4096);
        p.data = phys.allocate("data", 4096, 4096);
        p.wakeup_watermark = watermark;
        rb = std::make_unique<PerfBuffer>(p, stats);
        wakeup = std::make_unique<PerfWakeup>("wakeup", sc_time(2, SC_US), stats);
        rb->set_wakeup_sink(wakeup.get());
        CheckedBuffer cb;
        cb.name = "cpu0";
        cb.data_size = 4096;
        cb.sample_type = kSampleType;
        cb.sample_id_all = true;
        cb.stats = &stats;
        cb.rb = rb.get();
        checker = std::make_unique<Checker>(std::vector<CheckedBuffer>{cb}, &mem.engine());
        rb->set_observer(&checker->producer_side(0));
    }
    void writer(const char* name, ExecContext ctx, Picos start, double rate, Picos write_time,
                Picos stop) {
        RecordWriterParams p;
        p.context = ctx;
        p.arrivals.rate_hz = rate;
        p.arrivals.start = start;
        p.arrivals.random_phase = false;
        p.stop = stop;
        p.sample_size = 64;
        p.write_time = write_time;
        p.sample_type = kSampleType;
        WriteTarget t{&cpu0, &mem.agent("cpu0"), rb.get()};
        writers.push_back(std::make_unique<RecordWriter>(name, p, [t] { return t; }, [this] {
            if (--running == 0 && consumer) consumer->workload_exited();
        }));
        ++running;
    }
    void consume() {
        PerfConsumerParams p;
        p.wakeup_latency = 5'500'000; // 5.5 us: never at the same instant as a record
        p.copy_bandwidth = 1e9;
        p.write_bandwidth = 1e9;
        ConsumerMmap m{rb.get(), wakeup.get(), &stats, rb->params().user_page,
                       rb->params().data, 4096, false, false};
        consumer = std::make_unique<PerfConsumer>("consumer", p, mem.agent("cpu1"),
                                                  std::vector<ConsumerMmap>{m}, *checker,
                                                  [this] {
                                                      checker->finish();
                                                      finished = true;
                                                  });
    }
    uint64_t word(uint64_t off) { return phys.read_u64(rb->params().user_page + off); }
};

// Runs the simulation up to and including everything that happens at `t_ns`.
void run_until(uint64_t t_ps) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (t_ps > now) sc_core::sc_start(sc_time(double(t_ps - now), sc_core::SC_PS));
    while (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

} // namespace

TEST(ProducerConsumer, NestedNmiStretchesTheOuterWriterAndItPublishesBoth) {
    Rig r(0);
    // A task-context record takes 10 us; an NMI arrives 2 us into it and takes 1 us.
    r.writer("task", ExecContext::task, 0, 1000, 10'000'000, 1'000'000);
    r.writer("nmi", ExecContext::nmi, 2'000'000, 1000, 1'000'000, 3'000'000);
    run_until(5'000'000);
    EXPECT_EQ(r.word(perf::kOffDataHead), 0u); // the NMI reserved 64..128 but did not publish
    EXPECT_EQ(r.stats.records_nested, 1u);
    run_until(10'999'999); // the task still owes the 1 us the NMI took
    EXPECT_EQ(r.word(perf::kOffDataHead), 0u);
    run_until(11'000'000); // 10 us of its own + 1 us of NMI
    EXPECT_EQ(r.word(perf::kOffDataHead), 128u);
}

TEST(ProducerConsumer, WatermarkWakeupThenPushAtExactTimes) {
    // 64-byte records every 1 us from t = 1 us; watermark 256 bytes. The consumer's first
    // pass at t = 0 finds nothing and it sleeps in poll.
    Rig r(256);
    r.writer("nmi", ExecContext::nmi, 1'000'000, 1e6, 0, 101'000'000);
    r.consume();
    // R6 counts bytes produced: record 4 (t = 5 us, head 320 > 256) and record 8 (t = 9 us,
    // head 576 > 512) each wake. The first irq_work runs at 7 us, the second at 11 us; the
    // consumer, woken at 7 us, runs 5.5 us later, at 12.5 us, and finds records 1..12 us.
    run_until(12'499'999);
    EXPECT_EQ(r.stats.wakeups, 2u);
    EXPECT_EQ(r.stats.wakeups_delivered, 2u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 0u);
    run_until(12'500'000);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 768u);
    // Copy 768 bytes at 1 GB/s, then write them at 1 GB/s: data_tail moves at 14.036 us.
    run_until(14'035'999);
    EXPECT_EQ(r.word(perf::kOffDataTail), 0u);
    run_until(14'036'000);
    EXPECT_EQ(r.word(perf::kOffDataTail), 768u);
    sc_core::sc_start();
    EXPECT_TRUE(r.finished);
    EXPECT_EQ(r.stats.records_produced, 100u);
    EXPECT_EQ(r.stats.records_delivered, 100u);
    EXPECT_EQ(r.stats.violations_total, 0u);
}
