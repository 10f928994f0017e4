// perf_mmap's checks on the tool's two mappings (KERNEL-SEMANTICS R11, M3).
#include "models/kernel/perf_mmap.h"

#include <gtest/gtest.h>

namespace {

using namespace ringsim::models::perf;

TEST(PerfMmap, DataMappingIsOnePlusTwoToTheNPagesAtOffsetZero) {
    EXPECT_EQ(data_mmap_error(0, 9), "");
    EXPECT_EQ(data_mmap_error(0, 2), "");
    EXPECT_NE(data_mmap_error(0, 8), "");  // 7 data pages
    EXPECT_NE(data_mmap_error(0, 1), "");  // no data page
    EXPECT_NE(data_mmap_error(1, 9), "");  // not at the control page
}

TEST(PerfMmap, AuxMappingRules) {
    const uint64_t page = 4096, data = 8 * page;
    // perf's choice: right after the data mapping.
    EXPECT_EQ(default_aux_offset(data, page), 9 * page);
    EXPECT_EQ(aux_mmap_error(9 * page, 16 * page, 9 * page, 16 * page, data, page), "");
    EXPECT_EQ(aux_mmap_error(64 * page, 16 * page, 64 * page, 16 * page, data, page), "");
    // Inside the data area.
    EXPECT_NE(aux_mmap_error(8 * page, 16 * page, 8 * page, 16 * page, data, page)
                  .find("data_size + PAGE_SIZE"),
              std::string::npos);
    // Not page aligned.
    EXPECT_NE(aux_mmap_error(9 * page + 8, 16 * page, 9 * page + 8, 16 * page, data, page), "");
    // The mapping not at aux_offset, or not aux_size long.
    EXPECT_NE(aux_mmap_error(9 * page, 16 * page, 10 * page, 16 * page, data, page), "");
    EXPECT_NE(aux_mmap_error(9 * page, 16 * page, 9 * page, 8 * page, data, page), "");
    // Not 2^n pages.
    EXPECT_NE(aux_mmap_error(9 * page, 12 * page, 9 * page, 12 * page, data, page)
                  .find("2^n"),
              std::string::npos);
}

} // namespace
