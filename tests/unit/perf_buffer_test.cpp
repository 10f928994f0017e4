// The kernel's output path on its own (no SystemC): R1-R7 and R9 with exact numbers.
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_buffer.h"
#include "models/memory/engine_port.h"

#include <gtest/gtest.h>

using namespace ringsim::models;

namespace {

struct Recorder : RecordObserver, WakeupSink {
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> stored;
    std::vector<RecordStores> stores; // each record's
    int wakeups = 0;
    void on_record_stored(uint64_t pos, const std::vector<uint8_t>& b, uint64_t,
                          const RecordStores& s) override {
        stored.emplace_back(pos, b);
        stores.push_back(s);
    }
    void on_record_retracted(uint64_t) override {}
    void perf_output_wakeup() override { ++wakeups; }
};

struct Fixture : ::testing::Test {
    PhysicalMemory phys;
    MemorySystem sc{phys, MemoryModel::sc, TimingPolicy::none, 1};
    MemoryPort& kernel = sc.agent("cpu0");
    MemoryPort& user = sc.agent("cpu1");
    BufferStats stats;
    Recorder rec;
    std::unique_ptr<PerfBuffer> rb;
    perf::RecordContext ctx;

    void make(uint64_t pages, bool overwrite = false, bool backward = false, uint64_t watermark = 0,
              uint64_t wakeup_events = 0) {
        PerfBufferParams p;
        p.name = "rb";
        p.page_size = 4096;
        p.nr_pages = pages;
        p.user_page = phys.allocate("up", 4096, 4096);
        p.data = phys.allocate("data", pages * 4096, 4096);
        p.overwrite = overwrite;
        p.backward = backward;
        p.wakeup_watermark = watermark;
        p.wakeup_events = wakeup_events;
        rb = std::make_unique<PerfBuffer>(p, stats);
        rb->set_observer(&rec);
        rb->set_wakeup_sink(&rec);
        rb->init_userpage(kernel);
        ctx.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
        ctx.sample_id_all = true;
        ctx.id = 42;
    }
    uint64_t head() { return user.load(rb->params().user_page + perf::kOffDataHead, 8); }
    void set_tail(uint64_t t) { user.store(rb->params().user_page + perf::kOffDataTail, t, 8); }
    bool write(uint64_t size) {
        PerfBuffer::Handle h;
        if (!rb->output_begin(h, kernel, ctx, size)) return false;
        std::vector<uint8_t> bytes;
        perf::encode_sample(bytes, ctx, size, stats.records_produced, 1);
        rb->output_record(h, kernel, bytes);
        rb->output_end(h, kernel);
        return true;
    }
};

} // namespace

TEST_F(Fixture, UserPageHasTheKernelsFields) {
    make(2);
    EXPECT_EQ(user.load(rb->params().user_page + perf::kOffDataOffset, 8), 4096u);
    EXPECT_EQ(user.load(rb->params().user_page + perf::kOffDataSize, 8), 8192u);
    EXPECT_EQ(user.load(rb->params().user_page + perf::kOffSize, 4), 96u);
}

TEST_F(Fixture, CircSpaceKeepsOneByteFree) {
    // R1: an empty 4 KiB buffer offers 4095 bytes, so 63 records of 64 bytes fit, not 64.
    make(1);
    int written = 0;
    while (write(64))
        ++written;
    EXPECT_EQ(written, 63);
    EXPECT_EQ(head(), 63u * 64);
    EXPECT_EQ(stats.records_lost, 1u);
    EXPECT_EQ(perf::circ_space(4032, 0, 4096), 63u);
}

TEST_F(Fixture, LostRecordGoesInFrontOfTheNextRecordThatFits) {
    make(1);
    while (write(64)) {
    }
    EXPECT_FALSE(write(64)); // a second loss
    EXPECT_EQ(rb->pending_lost(), 2u);
    // 95 bytes of room: the record alone would fit, LOST (56) + record (64) does not (R5).
    set_tail(32);
    EXPECT_FALSE(write(64));
    EXPECT_EQ(rb->pending_lost(), 3u);
    set_tail(256);
    ASSERT_TRUE(write(64));
    EXPECT_EQ(rb->pending_lost(), 0u);
    const auto& [pos, bytes] = rec.stored[rec.stored.size() - 2];
    EXPECT_EQ(pos, 63u * 64);
    EXPECT_EQ(*reinterpret_cast<const uint32_t*>(bytes.data()), uint32_t(PERF_RECORD_LOST));
    EXPECT_EQ(*reinterpret_cast<const uint64_t*>(bytes.data() + 16), 3u);
    EXPECT_EQ(bytes.size(), perf::kLostRecordSize + 32); // TID TIME ID CPU trailer
    EXPECT_EQ(head(), 63u * 64 + 56 + 64);
    EXPECT_EQ(stats.lost_records_written, 1u);
}

TEST_F(Fixture, RecordStraddlesTheBufferEnd) {
    make(1);
    for (int i = 0; i < 63; ++i)
        ASSERT_TRUE(write(64));
    set_tail(63 * 64);
    ASSERT_TRUE(write(96)); // starts 64 bytes before the end, wraps 32 bytes to page 0
    const auto& [pos, bytes] = rec.stored.back();
    EXPECT_EQ(pos, 4032u);
    std::vector<uint8_t> got(96);
    user.load_bytes(rb->params().data + 4032, got.data(), 64);
    user.load_bytes(rb->params().data, got.data() + 64, 32);
    EXPECT_EQ(got, bytes);
}

TEST_F(Fixture, ARecordIsItsHeaderThenOneStorePerCacheLineOfItsBody) {
    // perf_output_put(header), then the body's __output_copy reaching memory a cache line
    // at a time (MEMORY-MODEL.md "Copies and records in pieces"), split at the buffer end.
    make(1);
    auto pieces = [&] {
        std::vector<std::pair<uint64_t, uint64_t>> out; // (offset in the buffer, size)
        rec.stores.back().each([&](uint64_t seq) {
            if (const OpRecord* op = sc.engine().store_record(seq))
                out.emplace_back(op->addr - rb->params().data, op->size);
        });
        return out;
    };
    ASSERT_TRUE(write(40));
    EXPECT_EQ(pieces(), (std::vector<std::pair<uint64_t, uint64_t>>{{0, 8}, {8, 32}}));
    ASSERT_TRUE(write(96));
    EXPECT_EQ(pieces(),
              (std::vector<std::pair<uint64_t, uint64_t>>{{40, 8}, {48, 16}, {64, 64}, {128, 8}}));
    for (int i = 0; i < 60; ++i)
        ASSERT_TRUE(write(64));
    set_tail(rec.stored.back().first);
    ASSERT_TRUE(write(160)); // at 3976: its header, the rest of that line, the last line,
                             // then 40 bytes past the buffer's end, at its start
    EXPECT_EQ(pieces(), (std::vector<std::pair<uint64_t, uint64_t>>{
                            {3976, 8}, {3984, 48}, {4032, 64}, {0, 40}}));
}

TEST_F(Fixture, WatermarkStepsOncePerReservation) {
    // R6: wakeup when head - rb->wakeup > watermark, one watermark step per reservation.
    make(1, false, false, 1024);
    EXPECT_EQ(rb->watermark(), 1024u);
    for (int i = 0; i < 16; ++i)
        ASSERT_TRUE(write(64)); // head = 1024: not above it
    EXPECT_EQ(rec.wakeups, 0);
    ASSERT_TRUE(write(64)); // 1088 > 1024
    EXPECT_EQ(rec.wakeups, 1);
    EXPECT_EQ(stats.wakeups, 1u);
}

// R1 with a record the buffer can never hold (perf_event_open takes any sample size up to
// the u16 header): every reservation fails, even in an empty buffer, and nothing is written.
TEST_F(Fixture, ARecordLargerThanTheRoomOfAnEmptyBufferIsAlwaysLost) {
    make(1);
    for (int i = 0; i < 5; ++i)
        EXPECT_FALSE(write(4096)); // 4095 bytes of room at most
    EXPECT_EQ(head(), 0u);
    EXPECT_EQ(stats.records_lost, 5u);
    EXPECT_EQ(rb->pending_lost(), 5u);
    EXPECT_TRUE(rec.stored.empty());
}

// R5 with a record that fits an empty buffer only without a PERF_RECORD_LOST in front: it
// is written while nothing was lost; after the first loss, LOST + record never fit again,
// so every later record is lost too, however much room the reader makes.
TEST_F(Fixture, ARecordThatFitsOnlyWithoutLostIsLostForeverAfterTheFirstLoss) {
    make(1);
    ASSERT_TRUE(write(4056));  // 4056 <= 4095; 56 + 4056 > 4095
    EXPECT_FALSE(write(4056)); // no room behind the first: the first loss
    for (int i = 0; i < 4; ++i) {
        set_tail(head()); // the reader has read everything: an empty buffer
        EXPECT_FALSE(write(4056));
    }
    EXPECT_EQ(rb->pending_lost(), 5u);
    EXPECT_EQ(stats.lost_records_written, 0u);
    EXPECT_EQ(rec.stored.size(), 1u);
    EXPECT_EQ(head(), 4056u);
}

// __perf_output_begin's fail and paused paths count event->lost_samples beside rb->lost:
// perf record reads it at exit (PERF_FORMAT_LOST) and writes one PERF_RECORD_LOST_SAMPLES
// per event that lost any.
TEST_F(Fixture, EveryLossCountsInItsEventsLostSamples) {
    make(1);
    while (write(64)) {
    }
    ctx.id = 7;
    EXPECT_FALSE(write(64));
    EXPECT_FALSE(write(64));
    rb->set_paused(true);
    ctx.id = 42;
    EXPECT_FALSE(write(64)); // R9
    rb->set_paused(false);
    EXPECT_EQ(rb->lost_samples(), (std::map<uint64_t, uint64_t>{{7, 2}, {42, 2}}));
    EXPECT_EQ(stats.lost_samples_records, 2u);
    EXPECT_EQ(stats.records_lost, 4u);
}

// ring_buffer_init caps attr.wakeup_watermark at the buffer size (R6).
TEST_F(Fixture, AWatermarkAboveTheBufferIsCappedAtItsSize) {
    make(1, false, false, 1u << 30);
    EXPECT_EQ(rb->watermark(), 4096u);
}

TEST_F(Fixture, DefaultWatermarkIsHalfTheBuffer) {
    make(4);
    EXPECT_EQ(rb->watermark(), 8192u);
}

TEST_F(Fixture, WakeupEventsCountsSamples) {
    make(4, false, false, 0, 3);
    for (int i = 0; i < 7; ++i) {
        PerfBuffer::Handle h;
        ASSERT_TRUE(rb->output_begin(h, kernel, ctx, 64));
        std::vector<uint8_t> bytes;
        perf::encode_sample(bytes, ctx, 64, i, 1);
        rb->output_record(h, kernel, bytes);
        rb->count_sample_event();
        rb->output_end(h, kernel);
    }
    EXPECT_EQ(rec.wakeups, 2); // after the 3rd and the 6th sample (R7)
}

TEST_F(Fixture, OnlyTheOutermostWriterPublishes) {
    make(1);
    PerfBuffer::Handle outer, inner;
    std::vector<uint8_t> a, b;
    perf::encode_sample(a, ctx, 64, 1, 1);
    perf::encode_sample(b, ctx, 64, 2, 1);
    ASSERT_TRUE(rb->output_begin(outer, kernel, ctx, 64));
    ASSERT_TRUE(rb->output_begin(inner, kernel, ctx, 64)); // an NMI mid-record
    EXPECT_EQ(inner.pos, 64u);
    rb->output_record(inner, kernel, b);
    rb->output_end(inner, kernel);
    EXPECT_EQ(head(), 0u); // R3: the inner writer does not publish
    rb->output_record(outer, kernel, a);
    rb->output_end(outer, kernel);
    EXPECT_EQ(head(), 128u); // the outer one publishes both
    EXPECT_EQ(stats.records_nested, 1u);
}

TEST_F(Fixture, PausedBufferCountsLossWithoutWriting) {
    make(1);
    rb->set_paused(true);
    EXPECT_FALSE(write(64));
    EXPECT_EQ(rb->pending_lost(), 1u);
    EXPECT_TRUE(rec.stored.empty());
    rb->set_paused(false);
    ASSERT_TRUE(write(64));
    EXPECT_EQ(rec.stored.size(), 2u); // LOST, then the sample (R9, R5)
    EXPECT_EQ(stats.paused_intervals, 1u);
}

TEST_F(Fixture, OverwriteModeNeverChecksTheTail) {
    make(1, true);
    for (int i = 0; i < 200; ++i)
        ASSERT_TRUE(write(64));
    EXPECT_EQ(head(), 200u * 64);
    EXPECT_EQ(stats.records_lost, 0u);
}

TEST_F(Fixture, BackwardHeadGoesDown) {
    make(1, true, true);
    ASSERT_TRUE(write(64));
    ASSERT_TRUE(write(64));
    EXPECT_EQ(head(), uint64_t(0) - 128); // R4: the newest record sits at data_head
    EXPECT_EQ(rec.stored.back().first, uint64_t(0) - 128);
}
