// Every allowed violation is reachable (issue 10, section 2; docs/memory-model.md "The
// reachability contract"). On generated scenarios that fill a data buffer of 1 to 64 pages
// of 4 KiB or 16 KiB with records of 24 B to 4 KiB, read by either reader, at the default
// timing bounds, `ringsim matrix` on arm shows stale reads exactly in the rows missing (B)
// or (C), and overwrites never in a row that keeps (A) and (D). A row missing (A) shows
// overwrites with records of up to 64 bytes: a failed writer's first stores (its
// PERF_RECORD_LOST and header) land on unread data only past the free gap a full buffer
// leaves, and larger records leave gaps that hold them. A row missing only (D) shows overwrites
// where a consumer releases a record within the bounds of reading it (libperf, records
// read and handled within load_late_max); push, which releases a whole pass after writing
// it out, cannot be overrun through (D) alone on these buffers: its loads have long
// performed when the tail moves. The barrier kinds keep their verdicts: (D) as rmb never,
// as wmb like none, acquire and release never. sc and tso never show anything. Seeds make
// every count exact.
//
// Reduced (tests/support/reduced.h): 6 seeds instead of 60 per cell and study, one instead of
// 10 per sc and tso cell. Every "never" assertion stays. Of the "seen" ones only the stale
// reads of the rows missing (B) stay, which show in most seeds; the others (stale reads
// through (C) alone, overwrites through (A) or (D) alone, (D) as wmb) show in as few as one
// seed in ten (stale without (C) on 2x16KiB_64B_libperf: 7 of 60) and are left to the full
// run.
#include "tests/support/reduced.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <ostream>
#include <string>

namespace {

using nlohmann::json;
using ringsim::testing_support::reduced;
using ringsim::testing_support::reduced_count;

// `--runs N`, N reduced to `at_least` or a tenth when the suite runs reduced.
std::string runs(uint64_t full, uint64_t at_least = 3) {
    return " --runs " + std::to_string(reduced_count(full, at_least));
}

// The default timing bounds (ringsim params) and the consumer of the generated scenarios.
constexpr double kLoadLateMaxNs = 100;
constexpr double kCopyBytesPerNs = 10;   // consumer.copy_bandwidth 10GB/s
constexpr double kWriteBytesPerNs = 100; // consumer.write_bandwidth 100GB/s
constexpr unsigned kAloneMaxRecord = 64; // bytes; see a_alone_reachable

struct Config {
    unsigned pages;
    unsigned page_kib;
    unsigned record; // bytes
    const char* reader;
};

std::string name_of(const Config& c) {
    return std::to_string(c.pages) + "x" + std::to_string(c.page_kib) + "KiB_" +
           std::to_string(c.record) + "B_" + c.reader;
}

// A buffer filled twice over by a burst, then a trickle the consumer reads right behind:
// the burst lets the producer run into the consumer (overwrites), the trickle lets the
// consumer read records as they are published (stale reads). A consumer that polls every
// 100 ns and handles records at memory speed.
json scenario(const Config& c) {
    const uint64_t bytes = uint64_t(c.pages) * c.page_kib * 1024;
    const uint64_t write_ps = c.record * 25 + 5000;                          // 40 GB/s, plus 5 ns
    const uint64_t period_ps = std::max<uint64_t>(100'000'000, bytes * 333); // 3x the drain
    const uint64_t trickle_ps = std::max<uint64_t>(500'000, c.record * 300);
    const uint64_t burst = 2 * bytes / c.record + 1;
    auto ps = [](uint64_t v) { return std::to_string(v) + "ps"; };
    auto hz = [](double v) { return std::to_string(uint64_t(v)) + "Hz"; };
    json s = {{"description", "A generated reachability scenario (reachability_test)."},
              {"seed", 1},
              {"duration", ps(2 * period_ps)},
              {"platform", {{"cpus", 2}}},
              {"session",
               {{"deployment", "per-cpu"},
                {"cpus", {0}},
                {"data_pages", c.pages},
                {"page_size", std::to_string(c.page_kib) + "KiB"},
                {"wakeup_events", 1}}},
              {"memory", {{"model", "arm"}}},
              {"kernel", {{"irq_work_latency", "100ns"}}},
              {"consumer",
               {{"cpu", 1},
                {"reader", c.reader},
                {"wakeup_latency", "100ns"},
                {"poll_timeout", "100ns"},
                {"per_record_cost", "0ns"},
                {"copy_bandwidth", "10GB/s"},
                {"write_bandwidth", "100GB/s"}}},
              {"workload",
               {{"writers",
                 {{{"name", "burst"},
                   {"rate", hz(double(burst) * 1e12 / double(period_ps))},
                   {"arrival", "bursty"},
                   {"burst_size", burst},
                   {"burst_spacing", ps(write_ps + 5000)},
                   {"size", std::to_string(c.record) + "B"},
                   {"write_time", ps(write_ps)}},
                  {{"name", "trickle"},
                   {"context", "irq"},
                   {"rate", hz(1e12 / double(trickle_ps))},
                   {"size", std::to_string(c.record) + "B"},
                   {"write_time", ps(write_ps)}}}}}}};
    // A 24-byte sample: header, ip and tid only.
    if (c.record < 56) s["session"]["sample_type"] = {"ip", "tid"};
    return s;
}

void PrintTo(const Config& c, std::ostream* os) {
    *os << name_of(c);
}

class Reachability : public ::testing::TestWithParam<Config> {
protected:
    void SetUp() override {
        // The test's name too: ctest -j2 runs two tests of one configuration at once, and
        // their scenario and output files must not be each other's.
        // "ArmShows.../1x4KiB_24B_push": the case's own name, before the parameter's.
        std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        test = test.substr(0, test.find('/'));
        path = ::testing::TempDir() + "/reach-" + name_of(GetParam()) + "-" + test + ".json";
        std::ofstream(path) << scenario(GetParam()).dump(2);
    }
    json run(const std::string& args) {
        return ringsim::testing_support::run_ringsim_json(args, path + ".out.json");
    }
    std::string path;
};

TEST_P(Reachability, ArmShowsExactlyWhatEachMissingBarrierAllows) {
    const Config c = GetParam();
    // (D) alone: the consumer releases a record within the bounds of reading it.
    const double release_ns = c.record / kCopyBytesPerNs + c.record / kWriteBytesPerNs;
    const bool libperf = std::string(c.reader) == "libperf";
    const bool d_alone_reachable = libperf && release_ns < kLoadLateMaxNs;
    // (A) alone: a failed writer's first stores (its PERF_RECORD_LOST and header, 64 bytes)
    // reach unread data only past the free gap a full buffer leaves, which small records
    // make common; larger ones leave gaps that hold them.
    const bool a_alone_reachable = c.record <= kAloneMaxRecord;
    const json m = run("matrix " + path + runs(60) + " --models arm --jobs 2");
    ASSERT_EQ(m.at("rows").size(), 16u);
    for (const json& row : m.at("rows")) {
        const std::string b = row.at("barriers");
        const json& v = row.at("violations");
        const bool a = b[0] == 'A', bb = b[1] == 'B', cc = b[2] == 'C', d = b[3] == 'D';
        const int stale = v.at("stale"), overrun = v.at("overrun");
        const std::string where = name_of(c) + " " + b + ": " + v.dump();
        if (b == "ABCD") {
            EXPECT_EQ(row.at("failed_runs").get<int>(), 0) << where;
        }
        if (bb && cc) {
            EXPECT_EQ(stale, 0) << where;
        } else if (!bb || !reduced()) {
            EXPECT_GT(stale, 0) << where;
        }
        if (a && d) {
            EXPECT_EQ(overrun, 0) << where;
        }
        if (((!a && a_alone_reachable) || (!d && d_alone_reachable)) && !reduced()) {
            EXPECT_GT(overrun, 0) << where;
        }
    }
}

TEST_P(Reachability, BarrierKindsKeepTheirVerdicts) {
    const Config c = GetParam();
    auto runs_with = [&](const std::string& sets, const char* kind) {
        const json r = run("explore " + path + runs(60) + " --jobs 2 " + sets);
        return r.at("kinds").at(kind).at("runs").get<int>();
    };
    // smp_rmb() orders the record loads before the data_tail store: as good as release.
    EXPECT_EQ(runs_with("--set barriers.data.D=rmb", "overrun"), 0) << name_of(c);
    // smp_wmb() orders stores only: the loads may still be in flight, as with none.
    const double release_ns = c.record / kCopyBytesPerNs + c.record / kWriteBytesPerNs;
    if (std::string(c.reader) == "libperf" && release_ns < kLoadLateMaxNs && !reduced()) {
        EXPECT_GT(runs_with("--set barriers.data.D=wmb", "overrun"), 0) << name_of(c);
    }
    // perf's own pairing, release for (B) too: never anything.
    const json r = run("explore " + path + runs(60) + " --jobs 2 --set barriers.data.B=release");
    EXPECT_EQ(r.at("failed_runs").get<int>(), 0) << name_of(c);
}

TEST_P(Reachability, ScAndTsoNeverShowAnything) {
    const json m = run("matrix " + path + runs(10, 1) + " --models sc,tso --jobs 2");
    ASSERT_EQ(m.at("rows").size(), 32u);
    for (const json& row : m.at("rows"))
        EXPECT_EQ(row.at("failed_runs").get<int>(), 0)
            << name_of(GetParam()) << " " << row.at("barriers").get<std::string>() << " on "
            << row.at("model").get<std::string>() << ": " << row.at("violations").dump();
}

INSTANTIATE_TEST_SUITE_P(Buffers, Reachability,
                         ::testing::Values(Config{1, 4, 24, "push"}, Config{1, 4, 24, "libperf"},
                                           Config{2, 16, 64, "libperf"}, Config{8, 4, 512, "push"},
                                           Config{16, 16, 4096, "push"},
                                           Config{64, 16, 4096, "libperf"}),
                         [](const auto& param_info) { return name_of(param_info.param); });

} // namespace
