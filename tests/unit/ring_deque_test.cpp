// models/common/ring_deque.h behaves as std::deque under any mix of its operations,
// across the growth of its array and the wrap of its head.
#include "models/common/ring_deque.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <random>

namespace {

using ringsim::models::RingDeque;

TEST(RingDeque, MatchesStdDequeUnderRandomOperations) {
    std::mt19937_64 rng(7);
    RingDeque<std::unique_ptr<int>> ring; // move-only, so no copy hides a bug
    std::deque<int> model;
    for (int step = 0; step < 20000; ++step) {
        const unsigned op = rng() % 10;
        const int v = int(rng() % 1000);
        if (op < 4) {
            ring.push_back(std::make_unique<int>(v));
            model.push_back(v);
        } else if (op < 6 && !model.empty()) {
            ring.pop_front();
            model.pop_front();
        } else if (op < 7 && !model.empty()) {
            ring.pop_back();
            model.pop_back();
        } else if (op < 8) {
            const size_t at = model.empty() ? 0 : rng() % (model.size() + 1);
            ring.insert_at(at, std::make_unique<int>(v));
            model.insert(model.begin() + long(at), v);
        }
        ASSERT_EQ(ring.size(), model.size()) << "step " << step;
        for (size_t i = 0; i < model.size(); ++i)
            ASSERT_EQ(*ring[i], model[i]) << "step " << step << " index " << i;
    }
}

TEST(RingDeque, LowerBoundFindsTheFirstNotLess) {
    RingDeque<int> ring;
    for (int i = 0; i < 40; ++i) // wraps the head: pops at the front, pushes at the back
        ring.push_back(2 * i);
    for (int i = 0; i < 10; ++i)
        ring.pop_front();
    for (int i = 40; i < 50; ++i)
        ring.push_back(2 * i);
    const auto less = [](int e, int k) { return e < k; };
    EXPECT_EQ(ring.lower_bound(20, less), 0u);
    EXPECT_EQ(ring.lower_bound(21, less), 1u);
    EXPECT_EQ(ring.lower_bound(98, less), ring.size() - 1);
    EXPECT_EQ(ring.lower_bound(99, less), ring.size());
}

} // namespace
