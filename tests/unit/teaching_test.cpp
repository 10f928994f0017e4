// The teaching scenarios teach what their descriptions say: under arm each lesson shows its
// violation kind (and no other) within 100 seeds, the correct variants show none, and the
// barrier matrix has stale reads exactly in the rows missing (B) or (C) and overwrites
// exactly in the rows missing (A) or (D), never on sc or tso. Seeds make this exact: the
// same binary always gives the same counts, so these tests cannot flicker. Reduced
// (tests/support/reduced.h): 20 seeds per lesson, 5 per matrix cell, 3 per safe scenario;
// every lesson still shows its violation (no-A, the rarest, in about one seed in four),
// and so does every matrix cell but one kind (see MatrixRowsMatchTheBarriersTheyLack).
#include "tests/support/reduced.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace {

const std::string kSource = RINGSIM_SOURCE_DIR;
using ringsim::testing_support::reduced;
using ringsim::testing_support::reduced_count;
using ringsim::testing_support::run_ringsim_json;

// `--runs N`, N reduced to `at_least` or a tenth when the suite runs reduced.
std::string runs(uint64_t full, uint64_t at_least = 3) {
    return " --runs " + std::to_string(reduced_count(full, at_least));
}

struct Lesson {
    const char* name;
    int stale, overrun; // 1: must be seen, 0: must never be seen
    int torn = 0;
};

class Teaching : public ::testing::TestWithParam<Lesson> {};

TEST_P(Teaching, ShowsItsViolationWithin100Seeds) {
    const Lesson l = GetParam();
    const std::string json = ::testing::TempDir() + "/teaching-" + l.name + ".json";
    const auto r = run_ringsim_json("explore " + kSource + "/scenarios/teaching/" + l.name +
                                        ".json" + runs(100, 20) + " --jobs 2",
                                    json);
    const auto& kinds = r.at("kinds");
    EXPECT_EQ(kinds.at("stale").at("runs").get<int>() > 0, l.stale == 1) << l.name;
    EXPECT_EQ(kinds.at("overrun").at("runs").get<int>() > 0, l.overrun == 1) << l.name;
    EXPECT_EQ(kinds.at("torn").at("runs").get<int>() > 0, l.torn == 1) << l.name;
}

INSTANTIATE_TEST_SUITE_P(Lessons, Teaching,
                         ::testing::Values(Lesson{"no-A", 0, 1}, Lesson{"no-B", 1, 0},
                                           Lesson{"no-C", 1, 0}, Lesson{"no-D", 0, 1},
                                           Lesson{"no-B-C", 1, 0}, Lesson{"no-A-D", 0, 1},
                                           Lesson{"d-rmb", 0, 0}, Lesson{"d-wmb", 0, 1},
                                           Lesson{"perf-acquire-release", 0, 0},
                                           Lesson{"torn", 1, 1, 1}, Lesson{"aya-0.13", 1, 0},
                                           Lesson{"aya", 0, 0}),
                         [](const auto& param_info) {
                             std::string n = param_info.param.name;
                             for (char& c : n)
                                 if (c == '-' || c == '.') c = '_';
                             return n;
                         });

TEST(Teaching, MatrixRowsMatchTheBarriersTheyLack) {
    const std::string json = ::testing::TempDir() + "/matrix.json";
    const auto r = run_ringsim_json(
        "matrix " + kSource + "/scenarios/teaching/matrix.json" + runs(30, 5) + " --jobs 2", json);
    ASSERT_EQ(r.at("rows").size(), 48u);
    for (const auto& row : r.at("rows")) {
        const std::string b = row.at("barriers");
        const std::string model = row.at("model");
        const bool arm = model == "arm";
        const bool mp = b[1] == '_' || b[2] == '_'; // B or C missing
        const bool lb = b[0] == '_' || b[3] == '_'; // A or D missing
        const auto& v = row.at("violations");
        EXPECT_EQ(v.at("stale").get<int>() > 0, arm && mp) << b << " " << model;
        // An overwrite through a missing (A) alone (D kept) shows in about one seed in four:
        // reduced, 5 seeds may well miss it, so that "seen" is left to the full run; "never"
        // (every other row) is checked reduced too.
        const bool seen_rarely = arm && b[0] == '_' && b[3] == 'D';
        if (!(reduced() && seen_rarely)) {
            EXPECT_EQ(v.at("overrun").get<int>() > 0, arm && lb) << b << " " << model;
        }
        EXPECT_EQ(v.at("torn").get<int>(), 0) << b << " " << model;
    }
}

} // namespace

namespace {

// With every barrier as Linux has it, no model may ever show a violation: each curated
// scenario, under tso and arm with random and adversarial timing, 20 seeds each.
// The readers matrix (scenarios/teaching/readers.json, docs/readers.md) on arm, each reader
// with its own (C) and (D): no violation without a missing barrier, except aya-0.13's stale
// reads (its code has no (C)); every reader reads stale records in some row missing (B) or
// (C); the readers that release each record at once (libperf, cilium-ebpf) overrun in some
// row missing (A) or (D).
TEST(Teaching, ReadersMatrixShowsWhatEachReaderGetsRightOrWrong) {
    const std::string json = ::testing::TempDir() + "/readers-matrix.json";
    const auto r = run_ringsim_json("matrix " + kSource + "/scenarios/teaching/readers.json" +
                                        runs(20, 10) + " --jobs 2 --models arm --readers all",
                                    json);
    ASSERT_EQ(r.at("rows").size(), 6u * 16u);
    std::map<std::string, int> stale_rows, overrun_rows;
    for (const auto& row : r.at("rows")) {
        const std::string b = row.at("barriers"), reader = row.at("reader");
        const bool mp = b[1] == '_' || b[2] == '_';
        const bool lb = b[0] == '_' || b[3] == '_';
        const auto& v = row.at("violations");
        const bool stale = v.at("stale").get<int>() > 0, overrun = v.at("overrun").get<int>() > 0;
        EXPECT_TRUE(!stale || mp || reader == "aya-0.13") << reader << " " << b;
        EXPECT_TRUE(!overrun || lb) << reader << " " << b;
        EXPECT_TRUE(b != "ABCD" || stale == (reader == "aya-0.13")) << reader;
        stale_rows[reader] += stale && mp;
        overrun_rows[reader] += overrun;
    }
    for (const char* reader : {"push", "libperf", "libbpf", "cilium-ebpf", "aya", "aya-0.13"})
        EXPECT_GT(stale_rows[reader], 0) << reader;
    EXPECT_GT(overrun_rows["libperf"], 0);
    EXPECT_GT(overrun_rows["cilium-ebpf"], 0);
}

class AllBarriersOn : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(AllBarriersOn, NeverViolates) {
    const auto [scenario, model] = GetParam();
    for (const char* reader : {"push", "libperf"})
        for (const char* policy : {"random", "adversarial"}) {
            const std::string json =
                ::testing::TempDir() + "/safe-" + scenario + model + reader + policy;
            const auto r = run_ringsim_json(
                std::string("explore ") + kSource + "/scenarios/" + scenario + ".json" + runs(20) +
                    " --jobs 2 --set memory.model=" + model +
                    " --set memory.timing.policy=" + policy + " --set consumer.reader=" + reader,
                json);
            EXPECT_EQ(r.at("failed_runs").get<int>(), 0)
                << scenario << " " << model << " " << reader << " " << policy;
        }
}

INSTANTIATE_TEST_SUITE_P(Curated, AllBarriersOn,
                         ::testing::Combine(::testing::Values("quickstart", "slow-consumer",
                                                              "overwrite", "nested-nmi",
                                                              "per-thread"),
                                            ::testing::Values("tso", "arm")),
                         [](const auto& param_info) {
                             std::string n = std::string(std::get<0>(param_info.param)) + "_" +
                                             std::get<1>(param_info.param);
                             for (char& c : n)
                                 if (c == '-' || c == '.') c = '_';
                             return n;
                         });

} // namespace
