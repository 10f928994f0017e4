// models/common/flat_ring.h behaves as std::deque under any mix of its operations, across
// the growth of its array and the wrap of its head, and hands out popped and erased slots
// again instead of destroying them.
#include "models/common/flat_ring.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <vector>

namespace {

using ringsim::models::FlatRing;

TEST(FlatRing, MatchesStdDequeUnderRandomOperations) {
    std::mt19937_64 rng(11);
    FlatRing<std::unique_ptr<int>> ring; // move-only, so no copy hides a bug
    std::deque<int> model;
    for (int step = 0; step < 20000; ++step) {
        // Growth and removal balanced around a few dozen elements: the head wraps often.
        const unsigned op = model.size() > 48 ? 4 + rng() % 6 : rng() % 10;
        const int v = int(rng() % 1000);
        if (op < 4) {
            ring.emplace_back() = std::make_unique<int>(v);
            model.push_back(v);
        } else if (op < 6 && !model.empty()) {
            ring.pop_front();
            model.pop_front();
        } else if (op < 8) {
            const size_t at = rng() % (model.size() + 1);
            ring.emplace_at(at) = std::make_unique<int>(v);
            model.insert(model.begin() + long(at), v);
        } else if (!model.empty()) {
            const size_t at = rng() % model.size();
            ring.erase_at(at);
            model.erase(model.begin() + long(at));
        }
        ASSERT_EQ(ring.size(), model.size()) << "step " << step;
        ASSERT_EQ(ring.empty(), model.empty()) << "step " << step;
        for (size_t i = 0; i < model.size(); ++i)
            ASSERT_EQ(*ring[i], model[i]) << "step " << step << " index " << i;
        if (!model.empty()) {
            ASSERT_EQ(*ring.front(), model.front());
            ASSERT_EQ(*ring.back(), model.back());
        }
    }
}

TEST(FlatRing, LowerBoundFindsTheFirstNotLessAcrossTheWrap) {
    FlatRing<int> ring;
    for (int i = 0; i < 6; ++i) // 8 slots: the pops and pushes below wrap the head
        ring.emplace_back() = 2 * i;
    for (int i = 0; i < 4; ++i)
        ring.pop_front();
    for (int i = 6; i < 12; ++i)
        ring.emplace_back() = 2 * i;
    ASSERT_EQ(ring.size(), 8u);
    const auto less = [](int e, int k) { return e < k; };
    EXPECT_EQ(ring.lower_bound(8, less), 0u);
    EXPECT_EQ(ring.lower_bound(9, less), 1u);
    EXPECT_EQ(ring.lower_bound(22, less), 7u);
    EXPECT_EQ(ring.lower_bound(23, less), 8u);
    EXPECT_EQ(ring.lower_bound(0, less), 0u);
}

TEST(FlatRing, PoppedAndErasedSlotsComeBackWithTheirCapacity) {
    // The ordering engine relies on this: a pending load's byte buffer is not reallocated
    // by the next load that takes its slot.
    FlatRing<std::vector<int>> ring;
    std::vector<const int*> buffers;
    for (int i = 0; i < 8; ++i) { // the array's first size: no growth below
        ring.emplace_back().assign(100, i);
        buffers.push_back(ring.back().data());
    }
    for (int i = 0; i < 8; ++i)
        ring.pop_front();
    for (int i = 0; i < 8; ++i) { // the head has gone round: the same slots, in order
        std::vector<int>& again = ring.emplace_back();
        EXPECT_EQ(again.data(), buffers[size_t(i)]) << i;
        EXPECT_GE(again.capacity(), 100u) << i;
    }
    while (!ring.empty())
        ring.pop_front();

    ring.emplace_back().assign(200, 2);
    ring.emplace_back().assign(300, 3);
    ring.emplace_back().assign(4, 4);
    const int* erased = ring[1].data();
    ring.erase_at(1); // its slot is now the one past the back
    ASSERT_EQ(ring.size(), 2u);
    EXPECT_EQ(ring[0], std::vector<int>(200, 2));
    EXPECT_EQ(ring[1], std::vector<int>(4, 4));
    EXPECT_EQ(ring.emplace_back().data(), erased);
}

} // namespace
