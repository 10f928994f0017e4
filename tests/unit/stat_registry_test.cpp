// The statistics registry: declarations are refused when ambiguous, values are read from the
// instances of a scope.
#include "models/common/stat_registry.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using namespace ringsim;
using models::StatInstances;
using models::StatRegistry;
using models::StatScope;
using models::StatValues;

struct Block {
    uint64_t a = 0, b = 0;
};
struct Whole {
    uint64_t polls = 0;
};

StatRegistry small_registry() {
    StatRegistry r;
    r.counter("x.a", "things", "the a of each block", &Block::a);
    r.counter("x.b", "things", "the b of each block", &Block::b);
    r.total_counter<Whole>("x.b", [](const Whole& w) { return w.polls; });
    r.ratio("x.a_fraction", "a / b", "x.a", "x.b");
    r.counter<Whole>("w.polls", "calls", "the whole's own count",
                     [](const Whole& w) { return w.polls; }, StatScope::total);
    return r;
}

TEST(StatRegistry, RefusesAPathDeclaredTwiceAndARatioOfNothing) {
    StatRegistry r = small_registry();
    EXPECT_THROW(r.counter("x.a", "things", "again", &Block::b), std::logic_error);
    EXPECT_THROW(r.ratio("x.c_fraction", "c / a", "x.c", "x.a"), std::logic_error);
    EXPECT_THROW(r.total_counter<Whole>("x.c", [](const Whole&) { return uint64_t(0); }),
                 std::logic_error);
    // A total-only counter cannot divide a per-buffer ratio.
    EXPECT_THROW(r.ratio("x.per_poll", "a / polls", "x.a", "w.polls"), std::logic_error);
}

TEST(StatRegistry, SumsTheInstancesOfAScopeAndDividesRatios) {
    const StatRegistry r = small_registry();
    const Block b0{3, 4}, b1{5, 0};
    const Whole w{7};
    StatInstances one;
    one.add(b0);
    const StatValues v0(r, one, StatScope::buffer);
    EXPECT_EQ(v0.count("x.a"), 3u);
    EXPECT_EQ(v0.count("x.b"), 4u);
    EXPECT_EQ(v0.fraction("x.a_fraction"), 0.75);
    EXPECT_FALSE(v0.has("w.polls")); // total only

    StatInstances nothing_in_b;
    nothing_in_b.add(b1);
    EXPECT_EQ(StatValues(r, nothing_in_b, StatScope::buffer).fraction("x.a_fraction"), 0.0);

    StatInstances all;
    all.add(b0);
    all.add(b1);
    all.add(w);
    const StatValues t(r, all, StatScope::total);
    EXPECT_EQ(t.count("x.a"), 8u);     // summed
    EXPECT_EQ(t.count("x.b"), 7u);     // the whole's own count, not 4 + 0
    EXPECT_EQ(t.fraction("x.a_fraction"), 8.0 / 7.0);
    EXPECT_EQ(t.count("w.polls"), 7u);
    EXPECT_THROW(t.count("x.nope"), std::logic_error);

    // No instance of the owner: absent, not zero (the AUX path without an AUX area).
    StatInstances only_whole;
    only_whole.add(w);
    const StatValues ow(r, only_whole, StatScope::total);
    EXPECT_FALSE(ow.has("x.a"));
    EXPECT_FALSE(ow.has("x.a_fraction"));
    EXPECT_TRUE(ow.has("w.polls"));
}

} // namespace
