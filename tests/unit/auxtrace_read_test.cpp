// perf's AUX read arithmetic (__auxtrace_mmap__read, C6), case by case.
#include "models/user/auxtrace_read.h"

#include <gtest/gtest.h>

using ringsim::models::perf::auxtrace_read;

TEST(AuxtraceRead, NothingNew) {
    EXPECT_TRUE(auxtrace_read(100, 100, 4096, false, 0).nothing());
}

TEST(AuxtraceRead, OneChunk) {
    const auto r = auxtrace_read(100, 1100, 4096, false, 0);
    EXPECT_EQ(r.size, 1000u);
    EXPECT_EQ(r.offset, 100u);
    EXPECT_EQ(r.off1, 100u);
    EXPECT_EQ(r.len1, 1000u);
    EXPECT_EQ(r.len2, 0u);
    EXPECT_EQ(r.padding, 0u);
}

TEST(AuxtraceRead, WrapsIntoTwoChunksEndingAtHead) {
    const auto r = auxtrace_read(4000, 4200, 4096, false, 0);
    EXPECT_EQ(r.size, 200u);
    EXPECT_EQ(r.offset, 4000u);
    EXPECT_EQ(r.off1, 4000u);
    EXPECT_EQ(r.len1, 96u);
    EXPECT_EQ(r.len2, 104u); // from offset 0 up to head_off
}

TEST(AuxtraceRead, ExactlyOneLapReadsAsAFullBuffer) {
    const auto r = auxtrace_read(1000, 1000 + 4096, 4096, false, 0);
    EXPECT_EQ(r.size, 4096u);
    EXPECT_EQ(r.offset, 1000u);
    EXPECT_EQ(r.len1 + r.len2, 4096u);
}

TEST(AuxtraceRead, MoreThanALapLosesTheOlderData) {
    // head - old = 4096 + 300: only the 300 bytes past the last whole lap are seen (D7).
    const auto r = auxtrace_read(1000, 1000 + 4096 + 300, 4096, false, 0);
    EXPECT_EQ(r.size, 300u);
    EXPECT_EQ(r.offset, 1000u + 4096u);
}

TEST(AuxtraceRead, SnapshotClipsToSnapshotSize) {
    const auto r = auxtrace_read(0, 3000, 4096, true, 1024);
    EXPECT_EQ(r.size, 1024u);
    EXPECT_EQ(r.offset, 3000u - 1024u); // the newest bytes, ending at head
    EXPECT_EQ(r.off1, 3000u - 1024u);
}

TEST(AuxtraceRead, PaddingToEightBytes) {
    EXPECT_EQ(auxtrace_read(0, 13, 4096, false, 0).padding, 3u);
    EXPECT_EQ(auxtrace_read(0, 16, 4096, false, 0).padding, 0u);
}

TEST(AuxtraceRead, AlignmentTrimsTheFirstChunk) {
    const auto r = auxtrace_read(4000, 4200, 4096, false, 0, 64);
    EXPECT_EQ(r.len1, 96u - 32u);
    EXPECT_EQ(r.size, 200u - 32u);
}
