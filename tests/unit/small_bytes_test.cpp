// models/common/small_bytes.h keeps exactly the bytes assigned, inline or on the heap,
// through copies, moves and reassignment across the inline limit.
#include "models/common/small_bytes.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using ringsim::models::SmallBytes;

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = uint8_t(seed + i * 7);
    return v;
}

bool same(const SmallBytes& b, const std::vector<uint8_t>& v) {
    return b.size() == v.size() && std::equal(v.begin(), v.end(), b.data());
}

TEST(SmallBytes, KeepsWhatWasAssignedThroughCopiesAndMoves) {
    for (size_t n : {size_t(0), size_t(1), size_t(40), SmallBytes::kInline, SmallBytes::kInline + 1,
                     size_t(4096)}) {
        const auto v = pattern(n, uint8_t(n));
        SmallBytes a;
        a.assign(v.data(), v.size());
        EXPECT_TRUE(same(a, v)) << n;
        SmallBytes copy = a;
        EXPECT_TRUE(same(copy, v)) << n;
        SmallBytes moved = std::move(copy);
        EXPECT_TRUE(same(moved, v)) << n;
        EXPECT_TRUE(copy.empty()) << n; // NOLINT: a moved-from SmallBytes is empty
        SmallBytes assigned;
        assigned = std::move(moved);
        EXPECT_TRUE(same(assigned, v)) << n;
        EXPECT_TRUE(same(a, v)) << n; // the original is untouched
    }
}

TEST(SmallBytes, ReassignsAcrossTheInlineLimitBothWays) {
    SmallBytes b;
    for (size_t n : {size_t(8), size_t(200), size_t(100), size_t(64), size_t(300), size_t(3)}) {
        const auto v = pattern(n, 3);
        b.assign(v.data(), v.size());
        EXPECT_TRUE(same(b, v)) << n;
    }
}

TEST(SmallBytes, AHeapBufferKeepsItsCapacityThroughMovesAndSwaps) {
    // A swap (RingDeque::insert_at shifts slots by swapping) exchanges heap buffers: each
    // must take its capacity along, or a later assign() trusts the other's and overruns.
    SmallBytes big, small;
    const auto b = pattern(4096, 1), s = pattern(100, 2);
    big.assign(b.data(), b.size());
    small.assign(s.data(), s.size());
    std::swap(big, small);
    EXPECT_TRUE(same(big, s));
    EXPECT_TRUE(same(small, b));
    const auto grown = pattern(3000, 5); // more than the 100-byte buffer `big` now holds
    big.assign(grown.data(), grown.size());
    EXPECT_TRUE(same(big, grown));
    SmallBytes moved = std::move(small);
    moved.assign(grown.data(), grown.size()); // within the 4096 bytes it took along
    EXPECT_TRUE(same(moved, grown));
}

} // namespace
