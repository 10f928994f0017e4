// Sweep specs and what is computed from them without running anything: every
// tests/config/bad-sweeps/*.json fails with the messages of its .expect file (JSON pointer,
// expected, found); axes expand in scenario units and in a fixed order; ids and seeds; the
// Student t quantiles; the table's means, intervals, duplicates and gaps; the target's answer.
#include "platform/stat_paths.h"
#include "platform/sweep/points.h"
#include "platform/sweep/spec.h"
#include "platform/sweep/steady.h"
#include "platform/sweep/student_t.h"
#include "platform/sweep/table.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace ringsim::platform::sweep;
using nlohmann::json;
using ringsim::platform::is_stat_path;
using ringsim::platform::nearest_stat_path;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

// The messages of loading a spec and, when that succeeds, of planning its points.
std::string messages_of(const std::string& file) {
    std::string text;
    const SpecLoad s = load_sweep_spec(file, {});
    for (const auto& e : s.errors)
        text += e.message() + "\n";
    if (s.spec)
        for (const auto& e : plan_sweep(*s.spec).errors)
            text += e.message() + "\n";
    return text;
}

// A spec file in a scratch directory, next to a copy of quickstart.json.
class SpecTest : public testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "sweep_spec_test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir = pattern;
        fs::copy_file(fs::path(RINGSIM_SOURCE_DIR) / "scenarios/quickstart.json",
                      dir / "base.json");
    }
    void TearDown() override { fs::remove_all(dir); }
    SweepSpec spec(const json& body, const std::vector<std::string>& sets = {}) {
        json doc = body;
        doc["scenario"] = "base.json";
        std::ofstream(dir / "spec.json") << doc.dump();
        SpecLoad s = load_sweep_spec((dir / "spec.json").string(), sets);
        EXPECT_TRUE(s.errors.empty()) << (s.errors.empty() ? "" : s.errors[0].message());
        return s.spec.value_or(SweepSpec{});
    }
    fs::path dir;
};

} // namespace

TEST(BadSweeps, EachFailsWithItsExpectedMessages) {
    const fs::path dir = fs::path(RINGSIM_SOURCE_DIR) / "tests/config/bad-sweeps";
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++files;
        fs::path expect = entry.path();
        expect.replace_extension(".expect");
        ASSERT_TRUE(fs::exists(expect)) << entry.path() << " has no .expect file";
        const std::string messages = messages_of(entry.path().string());
        EXPECT_FALSE(messages.empty()) << entry.path();
        const auto expected = lines_of(expect);
        EXPECT_FALSE(expected.empty()) << expect;
        for (const std::string& line : expected)
            EXPECT_NE(messages.find(line), std::string::npos)
                << entry.path().filename() << ": missing\n  " << line << "\nin\n"
                << messages;
    }
    EXPECT_GE(files, 15u);
}

TEST(BadSweeps, NotARegularFileOrNotJson) {
    EXPECT_NE(messages_of("/dev/zero").find("expected a regular file"), std::string::npos);
    EXPECT_NE(messages_of("/no/such/spec.json").find("expected a readable sweep spec file"),
              std::string::npos);
    EXPECT_NE(messages_of(RINGSIM_SOURCE_DIR).find("expected a regular file"), std::string::npos);
}

TEST_F(SpecTest, RangesAndPowersOfTwoKeepTheScenarioUnits) {
    const SweepSpec s = spec(
        {{"axes",
          {{{"path", "workload.writers.0.rate"},
            {"range", {{"from", "1kHz"}, {"to", "2.5kHz"}, {"step", "500Hz"}}}},
           {{"path", "session.wakeup_watermark"}, {"pow2", {{"from", "3KiB"}, {"to", "16KiB"}}}},
           {{"path", "session.data_pages"}, {"range", {{"from", 8}, {"to", 16}, {"step", 4}}}}}}});
    ASSERT_EQ(s.axes.size(), 3u);
    EXPECT_EQ(json(s.axes[0].values), json({"1000Hz", "1500Hz", "2000Hz", "2500Hz"}));
    EXPECT_EQ(json(s.axes[1].values), json({"4KiB", "8KiB", "16KiB"}));
    EXPECT_EQ(json(s.axes[2].values), json({8, 12, 16}));
    EXPECT_EQ(*s.axes[0].numeric[1], 1500.0);
    EXPECT_EQ(*s.axes[1].numeric[2], 16384.0);
}

// The first axis varies slowest; zip pairs values; a point's id is its resolved scenario's,
// so the same point has the same id whatever else the spec says; seeds differ by replicate.
TEST_F(SpecTest, PointsInOrderWithStableIdsAndSeeds) {
    const json pages = {{"path", "session.data_pages"}, {"values", {8, 16}}};
    const json duration = {{"path", "duration"}, {"values", {"1ms", "2ms", "3ms"}}};
    const auto product = plan_sweep(spec({{"axes", {pages, duration}}}));
    ASSERT_TRUE(product.plan);
    const auto& points = product.plan->points;
    ASSERT_EQ(points.size(), 6u);
    EXPECT_EQ(points[0].axes, json({{"session.data_pages", 8}, {"duration", "1ms"}}));
    EXPECT_EQ(points[1].axes, json({{"session.data_pages", 8}, {"duration", "2ms"}}));
    EXPECT_EQ(points[3].axes, json({{"session.data_pages", 16}, {"duration", "1ms"}}));
    std::set<std::string> ids;
    for (const Point& p : points)
        ids.insert(p.id);
    EXPECT_EQ(ids.size(), 6u);

    const json pages2 = {{"path", "session.data_pages"}, {"values", {8, 16, 32}}};
    const auto zip = plan_sweep(spec({{"axes", {pages2, duration}}, {"combine", "zip"}}));
    ASSERT_TRUE(zip.plan);
    ASSERT_EQ(zip.plan->points.size(), 3u);
    EXPECT_EQ(zip.plan->points[1].axes, json({{"session.data_pages", 16}, {"duration", "2ms"}}));
    EXPECT_EQ(zip.plan->points[0].id, points[0].id);
    EXPECT_EQ(zip.plan->points[1].id, points[4].id);
    EXPECT_NE(zip.plan->spec_hash, product.plan->spec_hash);

    // A fixed override is part of the resolved scenario, hence of the id.
    const auto fixed = plan_sweep(spec({{"axes", {pages, duration}}}, {"consumer.cpu=2"}));
    ASSERT_TRUE(fixed.plan);
    EXPECT_NE(fixed.plan->points[0].id, points[0].id);

    EXPECT_EQ(replicate_seed(1, points[0].id, 0), replicate_seed(1, points[0].id, 0));
    EXPECT_NE(replicate_seed(1, points[0].id, 0), replicate_seed(1, points[0].id, 1));
    EXPECT_NE(replicate_seed(1, points[0].id, 0), replicate_seed(2, points[0].id, 0));
    EXPECT_NE(replicate_seed(1, points[0].id, 0), replicate_seed(1, points[1].id, 0));
}

// The plan keeps the scenario text its ids were hashed from, for every point to run, whatever
// becomes of the file after it. A file the loader would refuse is refused at the spec's
// /scenario, in the loader's words.
TEST_F(SpecTest, ThePlanKeepsTheScenarioTextItsIdsCameFrom) {
    const SweepSpec s = spec({{"axes", {{{"path", "session.data_pages"}, {"values", {8, 16}}}}}});
    const auto planned = plan_sweep(s);
    ASSERT_TRUE(planned.plan);
    ASSERT_TRUE(planned.plan->scenario_texts);
    std::stringstream file;
    file << std::ifstream(dir / "base.json").rdbuf();
    EXPECT_EQ(planned.plan->scenario_texts->scenario, file.str());
    EXPECT_TRUE(planned.plan->scenario_texts->histograms.empty()); // it names none

    std::ofstream(dir / "base.json") << "{}"; // edited after planning
    EXPECT_EQ(planned.plan->scenario_texts->scenario, file.str());
    fs::remove(dir / "base.json");
    fs::create_directory(dir / "base.json");
    const auto refused = plan_sweep(s);
    EXPECT_FALSE(refused.plan);
    ASSERT_EQ(refused.errors.size(), 1u);
    EXPECT_EQ(refused.errors[0].message(), "/scenario: expected a regular scenario file, found " +
                                               (dir / "base.json").string() + " (a directory)");
}

// The plan keeps the texts of the histogram files its points' loads read too, each by the
// path it was opened at, for the points to run: an axis over such files plans each file.
TEST_F(SpecTest, ThePlanKeepsTheHistogramFilesItsIdsCameFrom) {
    std::ofstream(dir / "a.csv") << "20us,5\n40us,1\n";
    std::ofstream(dir / "b.csv") << "# the slow one\n200us,1\n";
    json base = json::parse(std::ifstream(dir / "base.json"));
    base["consumer"]["wakeup_latency"] = {{"distribution", "empirical"}, {"file", "a.csv"}};
    std::ofstream(dir / "base.json") << base.dump();
    const json axis = {{"path", "consumer.wakeup_latency"},
                       {"values",
                        {{{"distribution", "empirical"}, {"file", "a.csv"}},
                         {{"distribution", "empirical"}, {"file", "b.csv"}}}}};
    const auto planned = plan_sweep(spec({{"axes", {axis}}}));
    ASSERT_TRUE(planned.plan) << (planned.errors.empty() ? "" : planned.errors[0].message());
    ASSERT_EQ(planned.plan->points.size(), 2u);
    EXPECT_NE(planned.plan->points[0].id, planned.plan->points[1].id);
    const auto& files = planned.plan->scenario_texts->histograms;
    ASSERT_EQ(files.size(), 2u);
    std::map<std::string, std::string> by_name;
    for (const auto& [path, text] : files)
        by_name[fs::path(path).filename().string()] = text;
    EXPECT_EQ(by_name["a.csv"], "20us,5\n40us,1\n");
    EXPECT_EQ(by_name["b.csv"], "# the slow one\n200us,1\n");

    // What the points run is what was planned: a plan made after the edit has other ids.
    std::ofstream(dir / "a.csv") << "900us,1\n";
    EXPECT_EQ(files.begin()->second, "20us,5\n40us,1\n");
    const auto replanned = plan_sweep(spec({{"axes", {axis}}}));
    ASSERT_TRUE(replanned.plan);
    EXPECT_NE(replanned.plan->points[0].id, planned.plan->points[0].id);
    EXPECT_EQ(replanned.plan->points[1].id, planned.plan->points[1].id);
}

TEST_F(SpecTest, DefaultMetricsAreTheLossFigures) {
    const auto plan = plan_sweep(spec(json::object()));
    ASSERT_TRUE(plan.plan);
    EXPECT_EQ(plan.plan->points.size(), 1u);
    EXPECT_EQ(plan.plan->metrics, default_metrics(false));
    for (const std::string& m : default_metrics(true))
        EXPECT_TRUE(is_stat_path(m)) << m;
}

TEST(StatPaths, BuffersByIndexOrNameAndTheNearestKnownPath) {
    EXPECT_TRUE(is_stat_path("total.records.lost"));
    EXPECT_TRUE(is_stat_path("buffers.0.records.lost"));
    EXPECT_TRUE(is_stat_path("buffers.cpu3.records.lost"));
    EXPECT_TRUE(is_stat_path("total.aux.bytes.lost"));
    EXPECT_FALSE(is_stat_path("total.records"));
    EXPECT_FALSE(is_stat_path("buffers.records.lost"));
    EXPECT_EQ(nearest_stat_path("total.record.lost"), "total.records.lost");
    const json stats = {{"total", {{"records", {{"lost", 3}}}}},
                        {"buffers",
                         {{{"name", "cpu0"}, {"records", {{"lost", 1}}}},
                          {{"name", "cpu1"}, {"records", {{"lost", 2}}}}}}};
    EXPECT_EQ(*stat_at(stats, "total.records.lost"), 3);
    EXPECT_EQ(*stat_at(stats, "buffers.1.records.lost"), 2);
    EXPECT_EQ(*stat_at(stats, "buffers.cpu0.records.lost"), 1);
    EXPECT_EQ(stat_at(stats, "buffers.2.records.lost"), nullptr);
    EXPECT_EQ(stat_at(stats, "total.records.lost.more"), nullptr);
}

// Against tabulated values of the t distribution's 97.5% quantile.
TEST(StudentT, QuantilesMatchTheTables) {
    EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 2), 4.3027, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 4), 2.7764, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 9), 2.2622, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 30), 2.0423, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.995, 10), 3.1693, 1e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.9600, 1e-4);
    EXPECT_NEAR(student_t_cdf(0, 5), 0.5, 1e-12);
    EXPECT_NEAR(student_t_quantile(0.025, 9), -2.2622, 1e-4);
}

namespace {

// A sweep of 3 pages x 2 rates, 2 replicates, minimising pages for lost <= 0.
SweepInfo small_info() {
    SweepInfo info;
    info.spec_hash = "h";
    info.axes = {{"session.data_pages", {4, 8, 16}, {4.0, 8.0, 16.0}},
                 {"workload.writers.0.rate", {"10kHz", "100kHz"}, {1e4, 1e5}}};
    for (size_t p = 0; p < 3; ++p)
        for (size_t r = 0; r < 2; ++r)
            info.points.push_back({"p" + std::to_string(p) + std::to_string(r), {p, r}});
    info.metrics = {"total.records.lost"};
    info.replicates = 2;
    Target t;
    t.metric = "total.records.lost";
    t.bound = 0;
    t.axis = 0;
    info.target = t;
    return info;
}

json line(const std::string& point, uint64_t replicate, double lost, bool ok = true) {
    json l = {{"point", point}, {"replicate", replicate}, {"status", ok ? "ok" : "failed"}};
    if (ok) l["stats"] = {{"total", {{"records", {{"lost", lost}}}}}};
    return l;
}

} // namespace

TEST(Table, MeansIntervalsDuplicatesAndGaps) {
    const SweepInfo info = small_info();
    const std::vector<json> lines = {
        line("p00", 0, 0),        line("p00", 1, 0),   line("p01", 0, 10),
        line("p01", 1, 20),       line("p01", 1, 999), // a duplicate: dropped
        line("p10", 0, 0, false), line("p10", 1, 0),   // one failed replicate
        line("p11", 0, 4),        line("p11", 1, 0),   line("p20", 0, 0),
        line("p20", 1, 0),        line("p21", 0, 0), // replicate 1 missing
        line("zz", 0, 1)};                           // not a point of this sweep
    const Table t = build_table(info, lines);
    EXPECT_EQ(t.duplicates, 1u);
    EXPECT_EQ(t.missing, 1u);
    EXPECT_EQ(t.unknown, 1u);
    ASSERT_EQ(t.rows.size(), 6u);
    const MetricSummary& m = t.rows[1].metrics[0];
    EXPECT_EQ(m.n, 2u);
    EXPECT_DOUBLE_EQ(m.mean, 15);
    ASSERT_TRUE(m.ci95);
    // sd = 7.0711, se = 5, t(0.975, 1) = 12.706
    EXPECT_NEAR(m.ci95->first, 15 - 12.7062 * 5, 1e-3);
    EXPECT_NEAR(m.ci95->second, 15 + 12.7062 * 5, 1e-3);
    EXPECT_EQ(t.rows[2].failed, 1u);
    EXPECT_EQ(t.rows[2].replicates, 1u);
    EXPECT_FALSE(t.rows[2].metrics[0].ci95); // one replicate: no interval
    const json j = table_json(info, t);
    EXPECT_EQ(j["rows"][1]["axes"],
              json({{"session.data_pages", 4}, {"workload.writers.0.rate", "100kHz"}}));
    EXPECT_EQ(j["rows"][1]["metrics"]["total.records.lost"]["mean"], 15.0);
    EXPECT_TRUE(j["rows"][2]["metrics"]["total.records.lost"]["ci95"].is_null());
    const std::string csv = table_csv(info, t);
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "point,session.data_pages,workload.writers.0.rate,replicates,failed,"
              "total.records.lost.mean,total.records.lost.ci95_lo,total.records.lost.ci95_hi");
    EXPECT_NE(csv.find("\np00,4,10kHz,2,0,0.0,0.0,0.0\n"), std::string::npos) << csv;

    // 10kHz: 4 pages meet it in both replicates. 100kHz: 4 loses, 8 lost 4 in one replicate,
    // 16 has a replicate missing, so there is no answer, and the answer says why.
    const Answer a = answer(info, t);
    ASSERT_EQ(a.lines.size(), 2u);
    EXPECT_EQ(a.other_paths, std::vector<std::string>{"workload.writers.0.rate"});
    EXPECT_EQ(*a.lines[0].value, 4);
    EXPECT_FALSE(a.lines[1].value);
    EXPECT_NE(a.lines[1].note.find("not complete"), std::string::npos);
    EXPECT_EQ(
        answer_csv(info, a),
        "workload.writers.0.rate,session.data_pages,status\n10kHz,4,ok\n100kHz,,incomplete\n");
}

TEST(Table, MaximiseAtLeastAndNoneInRange) {
    SweepInfo info = small_info();
    info.target->minimize = false;
    info.target->at_most = false;
    info.target->bound = 5;
    std::vector<json> lines;
    for (const auto& p : info.points)
        for (uint64_t r = 0; r < 2; ++r)
            lines.push_back(line(p.id, r, p.value_index[1] ? double(p.value_index[0]) * 5 : 0));
    const Answer a = answer(info, build_table(info, lines));
    ASSERT_EQ(a.lines.size(), 2u);
    EXPECT_FALSE(a.lines[0].value); // 10kHz never loses 5
    EXPECT_EQ(a.lines[0].note, "");
    EXPECT_EQ(*a.lines[1].value, 16); // the largest that loses at least 5
}

// A point whose stats.json lacks the target's metric (an AUX figure of a run without an AUX
// area) never meets the target, and the answer says why instead of a bare "none in range".
TEST(Table, APointWithoutTheMetricIsSaidSo) {
    const SweepInfo info = small_info();
    std::vector<json> lines;
    for (const auto& p : info.points)
        for (uint64_t r = 0; r < 2; ++r) {
            json l = line(p.id, r, 0);
            if (p.value_index[1] == 1) l["stats"] = {{"total", json::object()}};
            lines.push_back(l);
        }
    const Answer a = answer(info, build_table(info, lines));
    ASSERT_EQ(a.lines.size(), 2u);
    EXPECT_EQ(*a.lines[0].value, 4);
    EXPECT_FALSE(a.lines[1].value);
    EXPECT_EQ(a.lines[1].note,
              "3 point(s) of this line without total.records.lost in their stats.json");
}

TEST(Table, SweepJsonRoundTrips) {
    SweepInfo info = small_info();
    // What sweep_json writes, as parse_sweep_json reads it back.
    json axes = json::array();
    for (const auto& a : info.axes)
        axes.push_back({{"path", a.path}, {"values", a.values}, {"numeric", {4.0, 8.0, 16.0}}});
    json points = json::array();
    for (const auto& p : info.points)
        points.push_back({{"point", p.id}, {"value_index", p.value_index}});
    const json doc = {
        {"spec_hash", "h"},
        {"replicates", 2},
        {"metrics", info.metrics},
        {"axes", axes},
        {"points", points},
        {"target",
         {{"metric", "total.records.lost"}, {"at_most", 0}, {"minimize", "session.data_pages"}}}};
    std::string error;
    const auto back = parse_sweep_json(doc, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->points.size(), 6u);
    EXPECT_EQ(back->target->axis, 0u);
    EXPECT_TRUE(back->target->minimize);
    EXPECT_FALSE(parse_sweep_json(json{{"spec_hash", 1}}, error));
    EXPECT_NE(error.find("not a sweep.json"), std::string::npos);
}

// The steady figures keep the intervals (end - interval, end] that start at or after the
// warm-up and end by the workload's end: not the start, not the drain.
TEST(Steady, TheWindowBetweenWarmupAndTheWorkloadsEnd) {
    std::string pattern = (fs::temp_directory_path() / "steady-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    const fs::path csv = fs::path(pattern) / "series.csv";
    std::ofstream(csv) << "time_ps,buffer,records.produced,records.delivered,records.lost,"
                          "bytes.unread,aux.bytes.produced,aux.bytes.harvested,aux.bytes.lost\n"
                          "1000,cpu0,10,0,0,0,100,0,0\n" // the warm-up
                          "1000,cpu1,10,0,5,0,100,0,50\n"
                          "2000,cpu0,10,8,2,0,100,0,10\n" // in
                          "2000,cpu1,10,9,1,0,100,0,0\n"
                          "3000,cpu0,10,10,0,0,100,0,0\n" // in
                          "3000,cpu1,10,10,4,0,100,0,30\n"
                          "3500,cpu0,0,30,0,0,0,0,7\n"; // the drain, after 3000
    std::string error;
    const auto s = steady_figures(csv, 1000, 1000, 3000, error);
    ASSERT_TRUE(s) << error;
    EXPECT_DOUBLE_EQ((*s)["window_s"].get<double>(), 2000e-12);
    EXPECT_EQ((*s)["total"]["records"]["produced"], 40);
    EXPECT_EQ((*s)["total"]["records"]["delivered"], 37);
    EXPECT_EQ((*s)["total"]["records"]["lost"], 7);
    EXPECT_DOUBLE_EQ((*s)["total"]["records"]["lost_fraction"].get<double>(), 7.0 / 40);
    EXPECT_EQ((*s)["total"]["aux"]["bytes"]["lost"], 40);
    EXPECT_DOUBLE_EQ((*s)["total"]["aux"]["bytes"]["lost_fraction"].get<double>(), 0.1);
    EXPECT_FALSE(steady_figures(csv, 1000, 3000, 3000, error));
    EXPECT_NE(error.find("no interval"), std::string::npos);
    EXPECT_FALSE(steady_figures(fs::path(pattern) / "none.csv", 1000, 0, 3000, error));
    const json line = {{"steady", *s}, {"stats", {{"total", {{"records", {{"lost", 9}}}}}}}};
    EXPECT_EQ(*metric_at(line, "steady.total.records.lost"), 7);
    EXPECT_EQ(*metric_at(line, "total.records.lost"), 9);
    EXPECT_EQ(metric_at(json::object(), "steady.total.records.lost"), nullptr);
    fs::remove_all(pattern);
}
