// The consumer's tail_update and per-record cost knobs with exact simulated times: when
// data_tail moves under each reader (push, libperf, and the other projects' readers) with a
// batch or a per-record tail, the
// exponential per-record cost drawn from the consumer's own seeded stream, and the cost of
// a PERF_RECORD_LOST (lost_record_cost).
#include "models/common/rng.h"
#include "tests/support/one_buffer_rig.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ringsim::models;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

constexpr Picos kUs = 1'000'000;

// One 4KiB data page, the default watermark (half of it), irq_work after 2 us.
struct Rig : ringsim::test::OneBufferRig {
    // Records of `size` bytes every 1 us from `start` (NMI, written at once), none from `stop`.
    void writer(const char* name, Picos start, Picos stop, uint64_t size) {
        OneBufferRig::writer(name, ExecContext::nmi, start, 1e6, 0, stop, size);
    }
    uint64_t tail() { return word(perf::kOffDataTail); }
};
using ringsim::test::run_until;

// Four 64-byte records at 1, 2, 3 and 4 us; no wakeup (256 bytes stay below the 2 KiB
// watermark), so the consumer runs when the workload's exit at 4.5 us ends its poll, after
// its 5.5 us wake-up latency: at 10 us, with all four records there.
PerfConsumerParams four_records(Rig& r, ReaderKind reader, TailUpdate tail) {
    r.writer("nmi", 1 * kUs, 4 * kUs + kUs / 2, 64);
    PerfConsumerParams p;
    p.reader = reader;
    p.tail_update = tail;
    p.per_record_cost = kUs;
    return p;
}

// Expects data_tail to move to 64, 128, 192, 256 exactly at `at[0..3]`.
void expect_tail_steps(Rig& r, const std::vector<Picos>& at) {
    uint64_t expected = 0;
    for (Picos t : at) {
        run_until(t - 1);
        EXPECT_EQ(r.tail(), expected) << "just before " << t << " ps";
        run_until(t);
        expected += 64;
        EXPECT_EQ(r.tail(), expected) << "at " << t << " ps";
    }
}

void finish(Rig& r) {
    sc_core::sc_start();
    EXPECT_TRUE(r.end.finished);
    EXPECT_EQ(r.stats.records_produced, r.stats.records_delivered);
    EXPECT_EQ(r.stats.violations_total, 0u);
}

} // namespace

TEST(ConsumerTail, LibperfPerRecordStoresTheTailAfterEachRecord) {
    Rig r;
    r.consume(four_records(r, ReaderKind::libperf, TailUpdate::per_record));
    // Each record: 1 us of handling + 128 ns of copy and write, then its tail store.
    expect_tail_steps(r, {11'128'000, 12'256'000, 13'384'000, 14'512'000});
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    finish(r);
}

TEST(ConsumerTail, LibperfBatchStoresTheTailOnceAfterTheLoop) {
    Rig r;
    r.consume(four_records(r, ReaderKind::libperf, TailUpdate::batch));
    // The same handling times, but one perf_mmap__consume after the fourth record.
    run_until(14'511'999);
    EXPECT_EQ(r.tail(), 0u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 256u); // all four were read meanwhile
    run_until(14'512'000);
    EXPECT_EQ(r.tail(), 256u);
    finish(r);
}

TEST(ConsumerTail, PushBatchStoresTheTailOnceAfterTheChunkWithoutPerRecordCost) {
    Rig r;
    r.consume(four_records(r, ReaderKind::push, TailUpdate::batch));
    // perf_mmap__push: 256 bytes copied and written at 1 GB/s each: 512 ns; no per-record
    // cost (perf record does not look at the records).
    run_until(10'511'999);
    EXPECT_EQ(r.tail(), 0u);
    run_until(10'512'000);
    EXPECT_EQ(r.tail(), 256u);
    finish(r);
}

TEST(ConsumerTail, PushPerRecordHandlesTheChunkRecordByRecord) {
    Rig r;
    r.consume(four_records(r, ReaderKind::push, TailUpdate::per_record));
    // One chunk copied at 10 us, then each record handled and released in turn.
    run_until(10'000'000);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 256u);
    expect_tail_steps(r, {11'128'000, 12'256'000, 13'384'000, 14'512'000});
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    finish(r);
}

// The readers of other projects (models/user/readers.h), each with its own tail policy and
// record cost: cilium-ebpf copies each record (1 us + 64 ns at 1 GB/s) and stores the tail
// after it; libbpf and aya handle records in place (1 us each, no copy, no perf.data) and
// store the tail once; aya-0.13 copies, then stores once.
TEST(ConsumerTail, CiliumEbpfCopiesEachRecordAndStoresTheTailAfterIt) {
    Rig r;
    r.consume(four_records(r, ReaderKind::cilium_ebpf, TailUpdate::per_record));
    expect_tail_steps(r, {11'064'000, 12'128'000, 13'192'000, 14'256'000});
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    finish(r);
}

void expect_one_tail_store_at(ReaderKind reader, Picos at) {
    Rig r;
    r.consume(four_records(r, reader, TailUpdate::batch));
    run_until(at - 1);
    EXPECT_EQ(r.tail(), 0u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 256u); // all four were read meanwhile
    run_until(at);
    EXPECT_EQ(r.tail(), 256u);
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    finish(r);
}

TEST(ConsumerTail, LibbpfHandlesRecordsInPlaceAndStoresTheTailOnce) {
    expect_one_tail_store_at(ReaderKind::libbpf, 14'000'000);
}

TEST(ConsumerTail, AyaHandlesRecordsInPlaceAndStoresTheTailOnce) {
    expect_one_tail_store_at(ReaderKind::aya, 14'000'000);
}

TEST(ConsumerTail, Aya013CopiesEachRecordThenStoresTheTailOnce) {
    expect_one_tail_store_at(ReaderKind::aya_0_13, 14'256'000);
}

TEST(ConsumerTail, ExponentialCostsComeFromTheConsumersSeededStream) {
    Rig r;
    PerfConsumerParams p = four_records(r, ReaderKind::libperf, TailUpdate::per_record);
    p.per_record_cost.kind = TimeDistribution::Kind::exponential;
    p.cost_seed = derive_seed(7, "consumer.per_record_cost");
    r.consume(p);
    // The same stream, drawn here: each record's cost, rounded to the picosecond.
    Rng rng(p.cost_seed);
    std::vector<Picos> at;
    Picos t = 10 * kUs;
    for (int i = 0; i < 4; ++i) {
        const Picos draw = Picos(std::llround(rng.exponential(double(kUs))));
        EXPECT_NE(draw, kUs); // drawn, not the fixed cost
        t += draw + 128'000;
        at.push_back(t);
    }
    expect_tail_steps(r, at);
    finish(r);
}

// Three 1 KiB records at 1, 2, 3 us fill the buffer (3 x 1024 + 1024 > 4095, R1): the one at
// 4 us is lost. The third crosses the watermark (3072 > 2048): irq_work at 5 us, the
// consumer at 10.5 us. A last record at 20 us carries the PERF_RECORD_LOST (48 bytes with
// TID, TIME and ID in sample_id) in front of it (R5).
void lost_record_case(Picos lost_cost, Picos lost_done) {
    Rig r;
    r.writer("a", 1 * kUs, 4 * kUs + kUs / 2, 1024);
    r.writer("b", 20 * kUs, 20 * kUs + kUs / 2, 1024);
    PerfConsumerParams p;
    p.reader = ReaderKind::libperf;
    p.tail_update = TailUpdate::per_record;
    p.per_record_cost = kUs;
    p.lost_record_cost = lost_cost;
    r.consume(p);
    // 1 us + 2048 ns of bandwidth per 1 KiB record.
    run_until(19'644'000);
    EXPECT_EQ(r.tail(), 3072u);
    EXPECT_EQ(r.stats.records_lost, 1u);
    // The exit at 20.5 us wakes the consumer at 26 us. The LOST record costs lost_cost plus
    // 96 ns of bandwidth; the sample after it 1 us + 2048 ns.
    run_until(lost_done - 1);
    EXPECT_EQ(r.tail(), 3072u);
    run_until(lost_done);
    EXPECT_EQ(r.tail(), 3072u + 48);
    run_until(lost_done + 3'047'999);
    EXPECT_EQ(r.tail(), 3072u + 48);
    run_until(lost_done + 3'048'000);
    EXPECT_EQ(r.tail(), 3072u + 48 + 1024);
    sc_core::sc_start();
    EXPECT_TRUE(r.end.finished);
    EXPECT_EQ(r.stats.lost_records, 1u);
    EXPECT_EQ(r.stats.lost_reported, 1u);
    EXPECT_EQ(r.stats.records_delivered, 4u);
    EXPECT_EQ(r.stats.violations_total, 0u);
}

TEST(ConsumerTail, LostRecordCostsLostRecordCost) {
    lost_record_case(kUs, 27'096'000);
}

TEST(ConsumerTail, LostRecordCanCostNothing) {
    lost_record_case(0, 26'096'000);
}
