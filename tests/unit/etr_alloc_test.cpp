// The ETR driver's perf buffer (etr_alloc.h): E1 sizing, E2 mode choice, the SG pages.
#include "models/coresight/etr_sg_table.h"
#include "models/kernel/etr_alloc.h"
#include "models/memory/phys_mem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ringsim::models;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

TEST(EtrAlloc, E1TheAuxSizeWhenLargerThanSysfsBufferSizeElseBufferSize) {
    EXPECT_EQ(etr_buf_size(4 * kMiB, 1 * kMiB), 4 * kMiB);
    EXPECT_EQ(etr_buf_size(64 * kKiB, 1 * kMiB), 1 * kMiB); // larger than the AUX area
    EXPECT_EQ(etr_buf_size(1 * kMiB, 1 * kMiB), 1 * kMiB);
}

TEST(EtrAlloc, E2PreferredModeElseFlatBelowOneMiBAndSgFromIt) {
    EXPECT_FALSE(etr_buf_is_sg(EtrBufMode::auto_, 1 * kMiB - 4 * kKiB));
    EXPECT_TRUE(etr_buf_is_sg(EtrBufMode::auto_, 1 * kMiB));
    EXPECT_FALSE(etr_buf_is_sg(EtrBufMode::flat, 8 * kMiB));
    EXPECT_TRUE(etr_buf_is_sg(EtrBufMode::sg, 64 * kKiB));
}

TEST(EtrAlloc, FlatIsOneContiguousBuffer) {
    PhysicalMemory phys;
    const EtrBuf b = alloc_etr_buf(64 * kKiB, 256 * kKiB, EtrBufMode::auto_, phys, 1);
    EXPECT_FALSE(b.sg);
    EXPECT_EQ(b.size, 256 * kKiB);
    EXPECT_NE(b.flat_base, 0u);
    EXPECT_TRUE(b.sg_pages.empty());
    EXPECT_TRUE(b.sg_table.empty());
    EXPECT_EQ(b.flat_base % coresight::kSgPageSize, 0u);
}

TEST(EtrAlloc, SgPagesAreEveryPageOfThePoolInASeededOrderWithTheirOwnTable) {
    PhysicalMemory phys;
    const EtrBuf b = alloc_etr_buf(2 * kMiB, 1 * kMiB, EtrBufMode::auto_, phys, 7);
    ASSERT_TRUE(b.sg);
    EXPECT_EQ(b.size, 2 * kMiB);
    const uint64_t pages = 2 * kMiB / coresight::kSgPageSize;
    ASSERT_EQ(b.sg_pages.size(), pages);
    // A permutation of one pool's pages, not left in address order.
    std::vector<Addr> sorted = b.sg_pages;
    std::sort(sorted.begin(), sorted.end());
    for (uint64_t i = 0; i < pages; ++i)
        EXPECT_EQ(sorted[i], sorted[0] + i * coresight::kSgPageSize);
    EXPECT_NE(sorted, b.sg_pages);
    EXPECT_EQ(b.sg_table.size(), coresight::sg_table_pages(pages));
    // The table pages are outside the data pages.
    const std::set<Addr> data(b.sg_pages.begin(), b.sg_pages.end());
    for (Addr t : b.sg_table)
        EXPECT_EQ(data.count(t), 0u);

    // The same seed gives the same order (in fresh memory), another seed another order.
    PhysicalMemory again, other;
    EXPECT_EQ(alloc_etr_buf(2 * kMiB, 1 * kMiB, EtrBufMode::auto_, again, 7).sg_pages, b.sg_pages);
    EXPECT_NE(alloc_etr_buf(2 * kMiB, 1 * kMiB, EtrBufMode::auto_, other, 8).sg_pages, b.sg_pages);
}

} // namespace
