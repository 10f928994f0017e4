// PhysicalMemory: regions laid out in order, each access held by exactly one of them,
// whatever its page-hint cache last saw (small regions share a page).
#include "models/memory/phys_mem.h"

#include "models/common/types.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace ringsim::models;

TEST(PhysicalMemory, RegionsSharingAPageKeepTheirOwnBytes) {
    PhysicalMemory mem;
    const Addr x = mem.allocate("x", 64, 64), y = mem.allocate("y", 64, 64);
    const Addr big = mem.allocate("big", 3 * 4096, 4096);
    ASSERT_EQ(y, x + 64); // one page holds both
    // Alternate so that each access finds the other region's hint for its page.
    for (uint64_t i = 0; i < 8; ++i) {
        const uint64_t vx = 100 + i, vy = 200 + i;
        mem.write(x + 8 * i, reinterpret_cast<const uint8_t*>(&vx), 8);
        mem.write(y + 8 * i, reinterpret_cast<const uint8_t*>(&vy), 8);
    }
    for (uint64_t i = 0; i < 8; ++i) {
        EXPECT_EQ(mem.read_u64(y + 8 * i), 200 + i);
        EXPECT_EQ(mem.read_u64(x + 8 * i), 100 + i);
    }
    // An access across pages of one region, then one that runs past a region's end.
    std::vector<uint8_t> across(4096 + 16, 7), back(across.size());
    mem.write(big + 4096 - 8, across.data(), across.size());
    mem.read(big + 4096 - 8, back.data(), back.size());
    EXPECT_EQ(back, across);
    uint8_t two[16] = {};
    EXPECT_THROW(mem.read(x + 56, two, 16), ModelError) << "x ends at x + 64";
    EXPECT_THROW(mem.read(big + 3 * 4096 - 8, two, 16), ModelError);
    EXPECT_THROW(mem.read(0x1000, two, 8), ModelError) << "below every region";
}

} // namespace
