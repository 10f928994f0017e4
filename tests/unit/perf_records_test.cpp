// Record encodings against the UAPI layout, and the parser reading them back.
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_records.h"
#include "models/user/record_parser.h"

#include <gtest/gtest.h>

using namespace ringsim::models::perf;

namespace {
RecordContext context() {
    RecordContext c;
    c.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    c.sample_id_all = true;
    c.pid = 1000;
    c.tid = 1002;
    c.time_ns = 123456789;
    c.id = 7;
    c.cpu = 2;
    return c;
}
} // namespace

TEST(PerfAbi, ControlPageOffsetsAreTheKernels) {
    EXPECT_EQ(kOffDataHead, 0x400u);
    EXPECT_EQ(kOffDataTail, 0x408u);
    EXPECT_EQ(kOffDataOffset, 0x410u);
    EXPECT_EQ(kOffDataSize, 0x418u);
    EXPECT_EQ(kOffAuxHead, 0x420u);
    EXPECT_EQ(kUserPageSize, 96u);
}

TEST(PerfAbi, SampleSizes) {
    const uint64_t st = context().sample_type;
    EXPECT_EQ(sample_fixed_size(st), 56u);
    EXPECT_EQ(sample_size_exact(st, 56), 56u);
    EXPECT_EQ(sample_size_exact(st, 64), 64u); // RAW: u32 size + 4 bytes
    EXPECT_EQ(sample_size_exact(st, 60), 0u);  // not 8-aligned
    EXPECT_EQ(sample_size_exact(st, 48), 0u);  // below the fixed part
    EXPECT_EQ(id_header_size(st), 32u);        // TID TIME ID CPU
    // Each field the writer emits is 8 bytes; bits it does not emit add nothing.
    uint64_t all = 0;
    for (const char* name :
         {"identifier", "ip", "tid", "time", "id", "stream_id", "cpu", "period"}) {
        const uint64_t bit = sample_bit(name).value();
        EXPECT_EQ(sample_fixed_size(bit), kHeaderSize + 8) << name;
        all |= bit;
    }
    EXPECT_EQ(sample_fixed_size(all), kHeaderSize + 8 * 8);
    EXPECT_EQ(sample_fixed_size(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW), kHeaderSize);
}

TEST(PerfRecords, SampleLayout) {
    std::vector<uint8_t> b;
    encode_sample(b, context(), 72, 5, 100000);
    ASSERT_EQ(b.size(), 72u);
    const auto h = *parse_header(b.data(), b.size());
    EXPECT_EQ(h.type, uint32_t(PERF_RECORD_SAMPLE));
    EXPECT_EQ(h.size, 72u);
    const Record r = parse_record(b.data(), context().sample_type, true);
    EXPECT_EQ(r.pid, 1000u);
    EXPECT_EQ(r.tid, 1002u);
    EXPECT_EQ(r.time_ns, 123456789u);
    EXPECT_EQ(r.id, 7u);
    EXPECT_EQ(r.cpu, 2u);
    // PERIOD follows CPU; then RAW's u32 size: 72 - 56 - 4 = 12 bytes of data.
    EXPECT_EQ(*reinterpret_cast<const uint64_t*>(b.data() + 48), 100000u);
    EXPECT_EQ(*reinterpret_cast<const uint32_t*>(b.data() + 56), 12u);
}

TEST(PerfRecords, DistinctSequenceNumbersGiveDistinctBytes) {
    std::vector<uint8_t> a, b;
    encode_sample(a, context(), 64, 1, 1);
    encode_sample(b, context(), 64, 2, 1);
    EXPECT_NE(a, b);
}

TEST(PerfRecords, LostRecordWithSampleId) {
    std::vector<uint8_t> b;
    encode_lost(b, context(), 17);
    ASSERT_EQ(b.size(), 24u + 32u);
    const Record r = parse_record(b.data(), context().sample_type, true);
    EXPECT_EQ(r.header.type, uint32_t(PERF_RECORD_LOST));
    EXPECT_EQ(r.lost, 17u);
    EXPECT_EQ(r.id, 7u);
    EXPECT_EQ(r.cpu, 2u);
    EXPECT_EQ(r.time_ns, 123456789u);
}

TEST(PerfRecords, SwitchAndComm) {
    std::vector<uint8_t> b;
    encode_switch(b, context(), true);
    EXPECT_EQ(b.size(), 8u + 32u);
    EXPECT_EQ(parse_header(b.data(), b.size())->misc, PERF_RECORD_MISC_SWITCH_OUT);
    encode_comm(b, context(), "workload");
    EXPECT_EQ(b.size(), 8u + 24u + 32u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data() + 16)), "workload");
}

TEST(RecordParser, RejectsImplausibleHeaders) {
    EXPECT_FALSE(plausible(Header{9, 0, 0}));
    EXPECT_FALSE(plausible(Header{9, 0, 12}));
    EXPECT_TRUE(plausible(Header{9, 0, 16}));
    uint8_t four[4] = {};
    EXPECT_FALSE(parse_header(four, 4).has_value());
}
