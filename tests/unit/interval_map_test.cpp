// IntervalMap: insert keeps the first tag and returns the bytes newly tagged, adjacent equal
// tags merge (left, right, both sides), for_each_in clips to the asked range, find is
// half-open, erase_before drops only spans that end at or before the position.
#include "models/check/interval_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using ringsim::models::IntervalMap;

namespace {

// "[a,b)t ..." for the whole map.
std::string dump(const IntervalMap<char>& m) {
    std::string s;
    for (const auto& [a, sp] : m.spans())
        s += "[" + std::to_string(a) + "," + std::to_string(sp.end) + ")" + sp.tag + " ";
    return s;
}

using Part = std::tuple<uint64_t, uint64_t, char>;

std::vector<Part> parts(const IntervalMap<char>& m, uint64_t a, uint64_t b) {
    std::vector<Part> v;
    m.for_each_in(a, b, [&v](uint64_t x, uint64_t y, const char& t) { v.emplace_back(x, y, t); });
    return v;
}

} // namespace

TEST(IntervalMap, InsertKeepsTheFirstTagAndCountsNewBytes) {
    IntervalMap<char> m;
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.insert(10, 20, 'A'), 10u);
    EXPECT_EQ(m.insert(15, 30, 'B'), 10u); // only [20, 30) is new; [15, 20) stays A
    EXPECT_EQ(dump(m), "[10,20)A [20,30)B ");
    EXPECT_EQ(m.insert(12, 28, 'C'), 0u); // all covered
    EXPECT_EQ(m.insert(25, 25, 'C'), 0u); // empty range
    EXPECT_EQ(dump(m), "[10,20)A [20,30)B ");
    // Holes on both sides, another tag: [5, 10) and [30, 40) become C, nothing merges.
    EXPECT_EQ(m.insert(5, 40, 'C'), 15u);
    EXPECT_EQ(dump(m), "[5,10)C [10,20)A [20,30)B [30,40)C ");
    // Left merge: [40, 50) continues [30, 40)C.
    EXPECT_EQ(m.insert(40, 50, 'C'), 10u);
    EXPECT_EQ(dump(m), "[5,10)C [10,20)A [20,30)B [30,50)C ");
    // A different tag right after does not merge.
    EXPECT_EQ(m.insert(50, 60, 'B'), 10u);
    EXPECT_EQ(dump(m), "[5,10)C [10,20)A [20,30)B [30,50)C [50,60)B ");
    EXPECT_FALSE(m.empty());
}

// Right merges: the hole just before a span of the same tag. put() erases that span (both of
// its merge branches) while insert() still holds `it` on it, and insert() then reads
// it->first / it->second.end and increments it: heap-use-after-free (ASan reports it at
// interval_map.h:33; the both-sides case segfaults in a plain -O2 build).
TEST(IntervalMap, FillingAHoleBeforeAnEqualTagMergesRight) {
    IntervalMap<char> m;
    m.insert(10, 20, 'A');
    EXPECT_EQ(m.insert(5, 10, 'A'), 5u);
    EXPECT_EQ(dump(m), "[5,20)A ");
}

TEST(IntervalMap, FillingAHoleBetweenEqualTagsMergesBothSides) {
    IntervalMap<char> m;
    m.insert(0, 10, 'A');
    m.insert(20, 30, 'A');
    EXPECT_EQ(m.insert(10, 20, 'A'), 10u);
    EXPECT_EQ(dump(m), "[0,30)A ");
    EXPECT_EQ(m.spans().size(), 1u);
}

TEST(IntervalMap, InsertAcrossSeveralHolesTagsOnlyTheHoles) {
    IntervalMap<char> m;
    m.insert(0, 10, 'A');
    m.insert(20, 30, 'A');
    m.insert(40, 50, 'A');
    // New bytes: [10, 20) and [30, 40) = 20; [5, 10) and [40, 45) were A already.
    EXPECT_EQ(m.insert(5, 45, 'B'), 20u);
    EXPECT_EQ(dump(m), "[0,10)A [10,20)B [20,30)A [30,40)B [40,50)A ");
}

// The hole before a span of the same tag, and the insert going on past that span: put()
// merges the hole with that span by erasing it while insert() still iterates on it.
TEST(IntervalMap, InsertThroughASameTagSpanRightMerge) {
    IntervalMap<char> m;
    m.insert(20, 30, 'A');
    EXPECT_EQ(m.insert(10, 40, 'A'), 20u); // [10, 20) and [30, 40)
    EXPECT_EQ(dump(m), "[10,40)A ");
}

TEST(IntervalMap, InsertThroughASameTagSpanBothSidesMerge) {
    IntervalMap<char> m;
    m.insert(0, 10, 'A');
    m.insert(20, 30, 'A');
    EXPECT_EQ(m.insert(10, 40, 'A'), 20u);
    EXPECT_EQ(dump(m), "[0,40)A ");
}

TEST(IntervalMap, ForEachInClipsToTheRange) {
    IntervalMap<char> m;
    m.insert(5, 20, 'A');
    m.insert(20, 30, 'B');
    m.insert(40, 50, 'A');
    EXPECT_EQ(parts(m, 12, 45), (std::vector<Part>{{12, 20, 'A'}, {20, 30, 'B'}, {40, 45, 'A'}}));
    EXPECT_EQ(parts(m, 0, 5), std::vector<Part>{});   // before everything
    EXPECT_EQ(parts(m, 30, 40), std::vector<Part>{}); // the hole exactly
    EXPECT_EQ(parts(m, 25, 26), (std::vector<Part>{{25, 26, 'B'}}));
    EXPECT_EQ(parts(m, 49, 1000), (std::vector<Part>{{49, 50, 'A'}}));
    EXPECT_EQ(parts(m, 0, 1000), (std::vector<Part>{{5, 20, 'A'}, {20, 30, 'B'}, {40, 50, 'A'}}));
}

TEST(IntervalMap, FindIsHalfOpen) {
    IntervalMap<char> m;
    m.insert(5, 20, 'A');
    m.insert(20, 30, 'B');
    EXPECT_EQ(m.find(4), nullptr);
    ASSERT_NE(m.find(5), nullptr);
    EXPECT_EQ(m.find(5)->first, 5u);
    EXPECT_EQ(m.find(19)->second.tag, 'A');
    EXPECT_EQ(m.find(20)->first, 20u);
    EXPECT_EQ(m.find(20)->second.tag, 'B');
    EXPECT_EQ(m.find(29)->second.end, 30u);
    EXPECT_EQ(m.find(30), nullptr);
}

TEST(IntervalMap, EraseBeforeDropsOnlyWholeSpansEndingByThePosition) {
    IntervalMap<char> m;
    m.insert(5, 20, 'A');
    m.insert(20, 30, 'B');
    m.insert(40, 50, 'A');
    m.erase_before(25); // [5,20) ends before 25; [20,30) does not: kept whole, not clipped
    EXPECT_EQ(dump(m), "[20,30)B [40,50)A ");
    m.erase_before(30); // ends exactly at 30: dropped
    EXPECT_EQ(dump(m), "[40,50)A ");
    m.erase_before(10); // nothing ends by 10
    EXPECT_EQ(dump(m), "[40,50)A ");
    m.erase_before(1000);
    EXPECT_TRUE(m.empty());
}

// Random inserts, mostly at or past the end (the remembered last span's fast path), against
// a byte array of tags: the same bytes added at every step, and in the end the same spans,
// adjacent equal tags merged. Between inserts, erase_before (whole spans ending by the
// position leave the model too) and the map replaced by a copy of it (the original
// destroyed), by a map with spans of its own assigned a copy, or by one moved from it: each
// must forget the span it remembered, which named a node of another map. Fails when the
// copy constructor or the copy assignment keeps it.
TEST(IntervalMap, InsertsAtTheEndAgreeWithAByteModel) {
    std::mt19937_64 rng(11);
    for (int run = 0; run < 200; ++run) {
        auto m = std::make_unique<IntervalMap<char>>();
        std::vector<char> ref(400, 0); // 0: untagged
        uint64_t end = 0, erased = 0;
        for (int i = 0; i < 40; ++i) {
            const uint64_t n = 1 + rng() % 12;
            uint64_t a = rng() % 4 ? end + rng() % 3 : rng() % (end + 1);
            a = std::max(a, erased);
            const uint64_t b = std::min<uint64_t>(a + n, ref.size());
            const char tag = "xy"[rng() % 2];
            uint64_t want = 0;
            for (uint64_t k = a; k < b; ++k)
                if (!ref[k]) {
                    ref[k] = tag;
                    ++want;
                }
            ASSERT_EQ(m->insert(a, b, tag), want) << "run " << run << " step " << i;
            end = std::max(end, b);
            switch (rng() % 10) {
            case 0: {
                // Whole spans (the model's runs of one tag) ending by p leave.
                const uint64_t p = rng() % (end + 1);
                m->erase_before(p);
                for (uint64_t k = 0; k < ref.size();) {
                    uint64_t e = k + 1;
                    while (ref[k] && e < ref.size() && ref[e] == ref[k])
                        ++e;
                    if (ref[k] && e <= p) std::fill(ref.begin() + k, ref.begin() + e, 0);
                    k = e;
                }
                erased = std::max(erased, p);
                break;
            }
            case 1: { // go on with a copy; the original goes
                auto copy = std::make_unique<IntervalMap<char>>(*m);
                m = std::move(copy);
                break;
            }
            case 2: { // go on with a map that had spans of its own, assigned a copy
                auto other = std::make_unique<IntervalMap<char>>();
                other->insert(1000, 1010, 'z');
                *other = *m;
                m = std::move(other);
                break;
            }
            case 3: { // go on with a map moved from it
                auto moved = std::make_unique<IntervalMap<char>>(std::move(*m));
                m = std::move(moved);
                break;
            }
            default:
                break;
            }
        }
        // The spans are the model's runs of equal tags, merged.
        std::string want;
        for (uint64_t k = 0; k < ref.size();) {
            if (!ref[k]) {
                ++k;
                continue;
            }
            uint64_t e = k;
            while (e < ref.size() && ref[e] == ref[k])
                ++e;
            want += "[" + std::to_string(k) + "," + std::to_string(e) + ")" + ref[k] + " ";
            k = e;
        }
        ASSERT_EQ(dump(*m), want) << "run " << run;
    }
}
