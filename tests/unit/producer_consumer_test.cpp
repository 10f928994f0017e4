// The kernel writers and the perf tool together under SystemC, with exact simulated times:
// nesting stretches the outer writer and delays data_head (R3); a watermark wakeup reaches
// the consumer after the irq_work and wake-up latencies (R6, R8) and the push path copies
// [prev, head) and releases the tail after its copy time (C4).
#include "tests/support/one_buffer_rig.h"

#include <gtest/gtest.h>

using namespace ringsim::models;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

using Rig = ringsim::test::OneBufferRig;
using ringsim::test::run_until;

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
    EXPECT_TRUE(r.end.finished);
    EXPECT_EQ(r.stats.records_produced, 100u);
    EXPECT_EQ(r.stats.records_delivered, 100u);
    EXPECT_EQ(r.stats.violations_total, 0u);
}
