// Simulated memory's bytes (models/memory/anon_bytes.h): zeroed and writable at every size,
// from the heap up to kHeapMax and a mapping beyond, and moved without a copy or a double free.
#include "models/memory/anon_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

using ringsim::models::AnonBytes;

TEST(AnonBytes, EverySizeIsZeroedAndWritable) {
    for (uint64_t size : {uint64_t(1), uint64_t(4096), AnonBytes::kHeapMax, AnonBytes::kHeapMax + 1,
                          uint64_t(1) << 22}) {
        // A heap region may reuse what an earlier one dirtied: fill one, free it, take another.
        {
            AnonBytes dirty(size);
            std::fill(dirty.data(), dirty.data() + size, uint8_t(0xa5));
        }
        AnonBytes b(size);
        ASSERT_NE(b.data(), nullptr) << size;
        EXPECT_EQ(b.size(), size);
        EXPECT_TRUE(std::all_of(b.data(), b.data() + size, [](uint8_t x) { return x == 0; }))
            << size;
        b.data()[size - 1] = 7;
        EXPECT_EQ(b.data()[size - 1], 7);
    }
}

TEST(AnonBytes, MovesHandOverTheBytes) {
    for (uint64_t size : {uint64_t(64), AnonBytes::kHeapMax + 4096}) {
        AnonBytes a(size);
        a.data()[0] = 3;
        uint8_t* const bytes = a.data();
        AnonBytes b(std::move(a));
        EXPECT_EQ(b.data(), bytes);
        EXPECT_EQ(a.data(), nullptr);
        EXPECT_EQ(a.size(), 0u);
        AnonBytes c(16);
        c = std::move(b); // c's own bytes are released, of whichever kind
        EXPECT_EQ(c.data(), bytes);
        EXPECT_EQ(c.size(), size);
        EXPECT_EQ(c.data()[0], 3);
    }
}
