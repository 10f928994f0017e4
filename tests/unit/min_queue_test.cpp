// models/common/min_queue.h gives what std::priority_queue gives under any mix of pushes and
// pops: the least value on top, each value out once, through growth and emptying.
#include "models/common/min_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

namespace {

using ringsim::models::MinQueue;

TEST(MinQueue, MatchesStdPriorityQueueUnderRandomOperations) {
    std::mt19937_64 rng(13);
    MinQueue<uint64_t> queue;
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> model;
    for (int step = 0; step < 50000; ++step) {
        // Sizes wander between empty and a few hundred; small value ranges give duplicates.
        const bool push = model.empty() || (model.size() < 300 && rng() % 100 < 52);
        if (push) {
            const uint64_t v = rng() % (step % 3 == 0 ? 8 : 100000);
            queue.push(v);
            model.push(v);
        } else {
            queue.pop();
            model.pop();
        }
        ASSERT_EQ(queue.size(), model.size()) << "step " << step;
        if (!model.empty()) {
            ASSERT_EQ(queue.top(), model.top()) << "step " << step;
        }
    }
}

TEST(MinQueue, DrainsInOrder) {
    MinQueue<int> queue;
    for (int v : {5, 3, 9, 3, 1, 7, 1, 8})
        queue.push(v);
    std::vector<int> out;
    while (!queue.empty()) {
        out.push_back(queue.top());
        queue.pop();
    }
    EXPECT_EQ(out, (std::vector<int>{1, 1, 3, 3, 5, 7, 8, 9}));
}

} // namespace
