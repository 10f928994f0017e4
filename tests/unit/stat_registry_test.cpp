// The statistics registry: declarations are refused when ambiguous, values are read from the
// instances of a scope, the addressable paths and "did you mean" work, and stats.json of a
// real run holds exactly the registry's paths, its loss fractions and per-buffer AUX books
// that add up to the total's.
#include "models/common/stat_registry.h"
#include "platform/stat_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

namespace {

using namespace ringsim;
using models::StatInstances;
using models::StatRegistry;
using models::StatScope;
using models::StatValues;
using nlohmann::json;

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
    r.counter<Whole>(
        "w.polls", "calls", "the whole's own count", [](const Whole& w) { return w.polls; },
        StatScope::total);
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
    // What was refused left no trace; what was declared is found with its unit.
    EXPECT_EQ(r.decls().size(), 4u);
    ASSERT_NE(r.find("x.a_fraction"), nullptr);
    EXPECT_EQ(r.find("x.a_fraction")->unit, "fraction");
    EXPECT_EQ(r.find("x.a")->description, "the a of each block");
    EXPECT_EQ(r.find("x.c_fraction"), nullptr);
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
    EXPECT_EQ(t.count("x.a"), 8u); // summed
    EXPECT_EQ(t.count("x.b"), 7u); // the whole's own count, not 4 + 0
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

TEST(StatRegistry, ACounterAddsAnotherModelsCountWhereThatModelHasInstances) {
    StatRegistry r = small_registry();
    r.adds_to<Whole>("x.a", [](const Whole& w) { return w.polls * 100; });
    EXPECT_THROW(r.adds_to<Whole>("x.c", [](const Whole&) { return uint64_t(0); }),
                 std::logic_error);
    const Block b0{3, 4};
    const Whole w{7};
    StatInstances buffer;
    buffer.add(b0);
    EXPECT_EQ(StatValues(r, buffer, StatScope::buffer).count("x.a"), 3u); // no Whole here
    StatInstances all;
    all.add(b0);
    all.add(w);
    EXPECT_EQ(StatValues(r, all, StatScope::total).count("x.a"), 703u);
}

TEST(StatPaths, ListsEveryLeafInItsAddressableForms) {
    const auto paths = platform::stat_paths();
    const std::set<std::string> set(paths.begin(), paths.end());
    EXPECT_EQ(set.size(), paths.size()) << "a path listed twice";
    for (const char* p :
         {"total.records.lost", "total.aux.bytes.lost", "buffers.*.records.lost",
          "buffers.*.aux.bytes.lost", "total.records.lost_fraction",
          "buffers.*.records.lost_fraction", "total.aux.bytes.lost_fraction",
          "buffers.*.aux.bytes.lost_fraction", "buffers.*.aux.lost_by_cause.sink_wrap",
          "total.consumer.polls", "buffers.*.consumer.polls", "total.aux.driver.harvests"})
        EXPECT_TRUE(set.count(p)) << p;
    // The driver, the sinks and perf's AUX reader serve every buffer: total only.
    EXPECT_FALSE(set.count("buffers.*.aux.driver.harvests"));
    EXPECT_FALSE(set.count("buffers.*.aux.sink.captures"));
}

TEST(StatPaths, NearestPathForADidYouMean) {
    using platform::nearest_stat_path;
    EXPECT_EQ(nearest_stat_path("total.records.lots"), "total.records.lost");
    EXPECT_EQ(nearest_stat_path("total.aux.bytes.lsot"), "total.aux.bytes.lost");
    EXPECT_EQ(nearest_stat_path("buffers.3.aux.bytes.lost_fractoin"),
              "buffers.*.aux.bytes.lost_fraction");
    EXPECT_EQ(nearest_stat_path("records.lost"), "total.records.lost");
    EXPECT_EQ(nearest_stat_path("total.records.lost"), "total.records.lost");
    EXPECT_TRUE(platform::is_stat_path("buffers.12.records.lost"));
    EXPECT_TRUE(platform::is_stat_path("total.aux.bytes.lost"));
    EXPECT_TRUE(platform::is_stat_path("buffers.cpu2.records.lost")); // a buffer by name
    EXPECT_FALSE(platform::is_stat_path("buffers.records.lost"));
    EXPECT_FALSE(platform::is_stat_path("total.records.lots"));
}

// ---- stats.json of real runs ----

json run(const std::string& scenario) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string out = ::testing::TempDir() + "/stat-registry-" + info->name();
    const std::string cmd = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR + "/" +
                            scenario + " --out " + out + " > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out + "/stats.json");
    return json::parse(in);
}

// Every numeric leaf, as "total.a.b" and "buffers.*.a.b".
void leaves(const json& j, const std::string& at, std::set<std::string>& out) {
    for (const auto& [k, v] : j.items()) {
        if (v.is_object())
            leaves(v, at + k + ".", out);
        else if (v.is_number())
            out.insert(at + k);
    }
}

std::set<std::string> json_paths(const json& stats) {
    std::set<std::string> out;
    leaves(stats.at("total"), "total.", out);
    for (const json& b : stats.at("buffers")) {
        json copy = b;
        copy.erase("cpu"); // the buffer's identity, not a statistic
        leaves(copy, "buffers.*.", out);
    }
    return out;
}

std::set<std::string> registry_paths(bool with_aux) {
    std::set<std::string> out;
    for (const std::string& p : platform::stat_paths())
        if (with_aux || p.find(".aux.") == std::string::npos) out.insert(p);
    return out;
}

uint64_t u(const json& j, const char* a, const char* b) {
    return j.at(a).at(b).get<uint64_t>();
}

void expect_records_fraction(const json& s) {
    const uint64_t produced = u(s, "records", "produced"), lost = u(s, "records", "lost");
    EXPECT_EQ(s.at("records").at("lost_fraction").get<double>(),
              produced ? double(lost) / double(produced) : 0.0);
}

TEST(StatsJson, DataOnlyRunHasTheRegistryPathsWithoutAux) {
    const json s = run("scenarios/slow-consumer.json");
    EXPECT_EQ(json_paths(s), registry_paths(false));
    EXPECT_TRUE(s.at("total").at("records").at("lost_fraction").is_number_float());
    EXPECT_GT(u(s.at("total"), "records", "lost"), 0u); // the fraction is not trivially 0
    expect_records_fraction(s.at("total"));
    for (const json& b : s.at("buffers"))
        expect_records_fraction(b);
}

// Each buffer's AUX books close as the total's do, and they add up to the total's exactly.
void expect_aux_books_per_buffer(const json& s) {
    const json& total = s.at("total").at("aux");
    std::set<std::string> per_buffer;
    leaves(s.at("buffers").at(0).at("aux"), "", per_buffer);
    unsigned producing = 0;
    for (const json& b : s.at("buffers")) {
        const json& a = b.at("aux");
        EXPECT_EQ(u(a, "bytes", "produced"), u(a, "bytes", "delivered") + u(a, "bytes", "lost") +
                                                 u(a, "bytes", "unread") +
                                                 u(a, "bytes", "corrupted"))
            << b.at("name");
        uint64_t by_cause = 0;
        for (const char* c : {"fifo_overflow", "sink_wrap", "aux_shortage", "memerr",
                              "snapshot_overwrite", "record_lost", "sink_stopped"})
            by_cause += u(a, "lost_by_cause", c);
        EXPECT_EQ(u(a, "bytes", "lost"), by_cause) << b.at("name");
        const uint64_t produced = u(a, "bytes", "produced");
        EXPECT_EQ(a.at("bytes").at("lost_fraction").get<double>(),
                  produced ? double(u(a, "bytes", "lost")) / double(produced) : 0.0);
        producing += produced > 0;
    }
    for (const std::string& leaf : per_buffer) {
        if (leaf.find("fraction") != std::string::npos) continue; // ratios do not add up
        std::string slashed = leaf;
        std::replace(slashed.begin(), slashed.end(), '.', '/');
        const json::json_pointer ptr("/" + slashed);
        uint64_t sum = 0;
        for (const json& b : s.at("buffers"))
            sum += b.at("aux").at(ptr).get<uint64_t>();
        EXPECT_EQ(sum, total.at(ptr).get<uint64_t>()) << "aux." << leaf;
    }
    const uint64_t produced = u(total, "bytes", "produced");
    EXPECT_EQ(total.at("bytes").at("lost_fraction").get<double>(),
              produced ? double(u(total, "bytes", "lost")) / double(produced) : 0.0);
    EXPECT_GT(producing, 0u);
}

TEST(StatsJson, SharedSinkRunBooksEachBuffersTraceWhereverItWasHarvested) {
    // -a with one shared ETR: the last CPU to stop harvests every CPU's trace into its own
    // AUX area, yet each buffer's books hold its own CPU's trace.
    const json s = run("scenarios/etr-system-wide.json");
    EXPECT_EQ(json_paths(s), registry_paths(true));
    expect_aux_books_per_buffer(s);
    unsigned harvested_into = 0;
    for (const json& b : s.at("buffers")) {
        EXPECT_GT(u(b.at("aux"), "bytes", "delivered"), 0u) << b.at("name");
        harvested_into += b.at("aux").at("records").get<uint64_t>() > 0;
    }
    EXPECT_EQ(harvested_into, 1u); // P3: one harvest, at the last stop, into one AUX area
    EXPECT_GT(u(s.at("total").at("aux"), "bytes", "lost"), 0u); // sink_wrap: a real fraction
    expect_records_fraction(s.at("total"));
}

TEST(StatsJson, PerThreadRunBooksEveryEtmToTheTasksBuffer) {
    const json s = run("scenarios/etr-per-thread.json");
    EXPECT_EQ(json_paths(s), registry_paths(true));
    ASSERT_EQ(s.at("buffers").size(), 1u);
    expect_aux_books_per_buffer(s);
}

} // namespace
