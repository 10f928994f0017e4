// The AUX core on its own (no SystemC): A2 room check, A3 record and head, A5 offsets in
// normal and overwrite mode, A6 TRUNCATED disabling, the AUX watermark's rounddown.
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/memory/engine_port.h"
#include "models/user/record_parser.h"

#include <gtest/gtest.h>

using namespace ringsim::models;

namespace {

struct Records : RecordObserver {
    std::vector<std::vector<uint8_t>> stored;
    void on_record_stored(uint64_t, const std::vector<uint8_t>& b, uint64_t,
                          const RecordStores&) override {
        stored.push_back(b);
    }
    void on_record_retracted(uint64_t) override {}
};

struct Aux : ::testing::Test {
    PhysicalMemory phys;
    MemorySystem sys{phys, MemoryModel::sc, TimingPolicy::none, 1};
    MemoryPort& kernel = sys.agent("cpu0");
    MemoryPort& user = sys.agent("cpu1");
    BufferStats stats;
    Records records;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<PerfAux> aux;
    perf::RecordContext ctx;
    Addr up = 0;

    void make(uint64_t aux_size, bool overwrite, uint64_t data_pages = 1) {
        up = phys.allocate("up", 4096, 4096);
        PerfBufferParams p;
        p.name = "rb";
        p.page_size = 4096;
        p.nr_pages = data_pages;
        p.user_page = up;
        p.data = phys.allocate("data", data_pages * 4096, 4096);
        rb = std::make_unique<PerfBuffer>(p, stats);
        rb->set_observer(&records);
        PerfAuxParams a;
        a.name = "aux";
        a.user_page = up;
        a.aux_size = aux_size;
        a.overwrite = overwrite;
        aux = std::make_unique<PerfAux>(a);
        ctx.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
        ctx.sample_id_all = true;
    }
    perf::Record last_record() {
        return perf::parse_record(records.stored.back().data(), ctx.sample_type, true);
    }
    uint64_t aux_field(uint64_t off) {
        uint64_t v;
        std::memcpy(&v, records.stored.back().data() + 8 + off, 8);
        return v;
    }
};

} // namespace

TEST_F(Aux, RoomIsCircSpaceOfAuxTail) {
    make(64 * 1024, false);
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    EXPECT_EQ(h.size, 64u * 1024 - 1); // one byte always free (A2)
    EXPECT_EQ(h.head, 0u);
    EXPECT_EQ(aux->watermark(), 32u * 1024);
}

TEST_F(Aux, RecordThenAuxHeadNormalMode) {
    make(64 * 1024, false);
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_end(h, kernel, 4096, *rb, ctx);
    ASSERT_EQ(records.stored.size(), 1u);
    EXPECT_EQ(last_record().header.type, uint32_t(PERF_RECORD_AUX));
    EXPECT_EQ(aux_field(0), 0u);    // offset: the first new byte (A5)
    EXPECT_EQ(aux_field(8), 4096u); // size
    EXPECT_EQ(aux_field(16), 0u);   // flags
    EXPECT_EQ(user.load(up + perf::kOffAuxHead, 8), 4096u);
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_end(h, kernel, 100, *rb, ctx);
    EXPECT_EQ(aux_field(0), 4096u);
}

TEST_F(Aux, NoRoomDisablesAndWakes) {
    make(4096, false);
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_end(h, kernel, 4095, *rb, ctx); // full: CIRC_SPACE = 0
    const uint64_t wakeups = stats.wakeups;
    EXPECT_FALSE(aux->output_begin(h, kernel, *rb));
    EXPECT_TRUE(aux->disable_requested());
    EXPECT_EQ(stats.wakeups, wakeups + 1);
    user.store(up + perf::kOffAuxTail, 4095, 8); // the tool read it all
    aux->clear_disable();
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    EXPECT_EQ(h.size, 4095u);
}

TEST_F(Aux, TruncatedDisablesAndWakes) {
    make(64 * 1024, false);
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_flag(h, PERF_AUX_FLAG_TRUNCATED);
    EXPECT_TRUE(aux->output_end(h, kernel, 16, *rb, ctx));
    EXPECT_TRUE(aux->disable_requested());
    EXPECT_EQ(aux_field(16), uint64_t(PERF_AUX_FLAG_TRUNCATED));
}

TEST_F(Aux, WatermarkWakeupRoundsDown) {
    make(64 * 1024, false); // watermark 32 KiB
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    EXPECT_FALSE(aux->output_end(h, kernel, 30000, *rb, ctx));
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    EXPECT_TRUE(aux->output_end(h, kernel, 10000, *rb, ctx)); // head 40000 >= 32768
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    // aux_wakeup = rounddown(40000, 32768) = 32768: the next wake at head >= 65536.
    EXPECT_FALSE(aux->output_end(h, kernel, 20000, *rb, ctx));
}

TEST_F(Aux, OverwriteModeRecordNamesTheNewHeadAndOverwriteAloneIsSilent) {
    make(64 * 1024, true);
    PerfAux::Handle h;
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    EXPECT_EQ(h.size, 0u); // no tail, no room check (A7)
    h.head += 8192;        // the driver moves the head itself (E5 snapshot)
    EXPECT_FALSE(aux->output_end(h, kernel, 8192, *rb, ctx));
    EXPECT_EQ(aux_field(0), 8192u); // the record's offset is the new head (A5)
    EXPECT_EQ(aux_field(16), uint64_t(PERF_AUX_FLAG_OVERWRITE));
    const size_t n = records.stored.size();
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_end(h, kernel, 0, *rb, ctx); // only OVERWRITE: no record
    EXPECT_EQ(records.stored.size(), n);
    EXPECT_THROW(aux->output_flag(h, PERF_AUX_FLAG_OVERWRITE), ModelError);
}

TEST_F(Aux, RecordLostWhenTheDataBufferIsFullButAuxHeadMoves) {
    make(64 * 1024, false, 1);
    // Fill the regular buffer: 4095 bytes of room, AUX records of 64 bytes (32 of them the
    // TID TIME ID CPU sample_id).
    PerfAux::Handle h;
    for (int i = 0; i < 63; ++i) {
        ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
        aux->output_end(h, kernel, 1, *rb, ctx);
    }
    EXPECT_EQ(aux->records_emitted(), 63u); // 63 * 64 = 4032 <= 4095 < 64 * 64
    ASSERT_TRUE(aux->output_begin(h, kernel, *rb));
    aux->output_end(h, kernel, 1, *rb, ctx);
    EXPECT_EQ(aux->records_lost(), 1u);
    EXPECT_EQ(user.load(up + perf::kOffAuxHead, 8), 64u); // the bytes exist without a record
}
