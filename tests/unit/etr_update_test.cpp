// The ETR harvest arithmetic (E4, E5, E6): what is kept, the barrier, TRUNCATED, and the
// copy split at both buffers' ends.
#include "models/kernel/etr_update.h"

#include <gtest/gtest.h>

using namespace ringsim::models;

namespace {
constexpr uint64_t kMask = memwidth_mask(128);

uint64_t copied(const EtrHarvest& h) {
    uint64_t n = 0;
    for (const auto& c : h.copies)
        n += c.len;
    return n;
}
} // namespace

TEST(EtrUpdate, NotFullFitsEverything) {
    const EtrSyncState hw{1 << 20, 0, 4096, false, false};
    const auto h = etr_update_buffer(hw, false, 64 * 1024 - 1, 0, 64 * 1024, kMask);
    EXPECT_EQ(h.offset, 0u);
    EXPECT_EQ(h.size, 4096u);
    EXPECT_FALSE(h.lost);
    EXPECT_FALSE(h.truncated);
    ASSERT_EQ(h.copies.size(), 1u);
    EXPECT_EQ(h.copies[0].aux_off, 0u);
}

TEST(EtrUpdate, FullKeepsTheWholeBufferFromRrpWithABarrierAndTruncated) {
    // Wrapped: RRP = RWP = 1000; the oldest byte is at 1000.
    const EtrSyncState hw{8192, 1000, 1000, true, false};
    const auto h = etr_update_buffer(hw, false, 64 * 1024 - 1, 0, 64 * 1024, kMask);
    EXPECT_EQ(h.offset, 1000u);
    EXPECT_EQ(h.size, 8192u);
    EXPECT_TRUE(h.lost);            // D3: the sink wrapped
    EXPECT_TRUE(h.truncated);       // normal mode
    ASSERT_EQ(h.copies.size(), 2u); // 7192 bytes to the ETR end, then 1000 from its start
    EXPECT_EQ(h.copies[0].etr_off, 1000u);
    EXPECT_EQ(h.copies[0].len, 7192u);
    EXPECT_EQ(h.copies[1].etr_off, 0u);
    EXPECT_EQ(h.copies[1].aux_off, 7192u);
}

TEST(EtrUpdate, LessAuxRoomKeepsTheNewestSixteenByteUnits) {
    // 4096 bytes captured, 1000 bytes of AUX room: keep the newest 992 (1000 & ~15).
    const EtrSyncState hw{8192, 0, 4096, false, false};
    const auto h = etr_update_buffer(hw, false, 1000, 0, 64 * 1024, kMask);
    EXPECT_EQ(h.size, 992u);
    EXPECT_EQ(h.offset, 4096u - 992u);
    EXPECT_TRUE(h.lost); // D2
    EXPECT_TRUE(h.truncated);
}

TEST(EtrUpdate, AuxRoomBelowSixteenBytesCommitsNothingButTruncated) {
    const EtrSyncState hw{8192, 0, 4096, false, false};
    const auto h = etr_update_buffer(hw, false, 15, 0, 64 * 1024, kMask);
    EXPECT_EQ(h.size, 0u); // D14: a size-0 record with TRUNCATED
    EXPECT_TRUE(h.truncated);
    EXPECT_TRUE(h.copies.empty());
}

TEST(EtrUpdate, CopyWrapsAtTheAuxEndToo) {
    const EtrSyncState hw{8192, 8000, 200, false, false}; // data wrap in the ETR: 8000..200
    const auto h = etr_update_buffer(hw, false, 4095, 4000, 4096, kMask);
    EXPECT_EQ(h.size, 392u);
    ASSERT_EQ(h.copies.size(), 3u); // AUX end at 96 bytes, ETR end at 192, then the rest
    EXPECT_EQ(h.copies[0].etr_off, 8000u);
    EXPECT_EQ(h.copies[0].aux_off, 4000u);
    EXPECT_EQ(h.copies[0].len, 96u);
    EXPECT_EQ(h.copies[1].etr_off, 8096u);
    EXPECT_EQ(h.copies[1].aux_off, 0u);
    EXPECT_EQ(h.copies[1].len, 96u);
    EXPECT_EQ(h.copies[2].etr_off, 0u);
    EXPECT_EQ(h.copies[2].aux_off, 96u);
    EXPECT_EQ(h.copies[2].len, 200u);
    EXPECT_EQ(copied(h), h.size);
}

TEST(EtrUpdate, MemErrDiscardsEverythingSilently) {
    const EtrSyncState hw{8192, 0, 4096, true, true};
    const auto h = etr_update_buffer(hw, false, 4095, 0, 4096, kMask);
    EXPECT_EQ(h.size, 0u);
    EXPECT_FALSE(h.lost);
    EXPECT_FALSE(h.truncated); // D10: no flag, no record
}

TEST(EtrUpdate, SnapshotNeverTruncatesAndAdvancesTheHeadByEverything) {
    // An ETR larger than the AUX buffer: the copy laps the AUX buffer, head moves by all (E6).
    const EtrSyncState hw{8192, 0, 0, true, false};
    const auto h = etr_update_buffer(hw, true, 0, 100, 4096, kMask);
    EXPECT_EQ(h.size, 8192u);
    EXPECT_TRUE(h.lost);       // the barrier packet still goes in (D3 snapshot)
    EXPECT_FALSE(h.truncated); // but no flag
    EXPECT_EQ(h.new_head, 100u + 8192u);
    EXPECT_EQ(copied(h), 8192u);
}

TEST(EtrUpdate, MemwidthMask) {
    EXPECT_EQ(1000 & memwidth_mask(64), 992u);
    EXPECT_EQ(1000 & memwidth_mask(256), 992u);
    EXPECT_EQ(1010 & memwidth_mask(256), 992u);
    EXPECT_EQ(1010 & memwidth_mask(128), 1008u);
}
