// run_cli_stats() (platform/cli.h), what a sweep's point runs in its worker: the statistics of
// `ringsim run --stats-only` as text, and no file in --out unless --series writes one there.
#include "platform/cli.h"
#include "platform/config/loader.h"
#include "platform/runner/ringsim_child.h"
#include "platform/sweep/points.h"
#include "platform/sweep/spec.h"
#include "platform/systemc_kernel.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
namespace runner = ringsim::platform::runner;

namespace {

std::vector<std::string> quickstart(const fs::path& out) {
    return {std::string(RINGSIM_SOURCE_DIR) + "/scenarios/quickstart.json",
            "--set",
            "duration=2ms",
            "--seed",
            "7",
            "--out",
            out.string()};
}

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

TEST(RunCliStats, GivesTheStatsOfARunAndWritesNothing) {
    const fs::path base = fs::path(::testing::TempDir()) / "run-cli-stats";
    fs::remove_all(base);
    std::vector<std::string> args = quickstart(base / "file");
    args.insert(args.begin(), {"ringsim", "run"});
    args.push_back("--stats-only");
    std::vector<char*> argv;
    for (auto& s : args)
        argv.push_back(s.data());
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli(int(argv.size()), argv.data()), 0);
    std::ifstream in(base / "file" / "stats.json");
    const nlohmann::json from_file = nlohmann::json::parse(in);

    std::string text;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(quickstart(base / "text"), text), 0);
    EXPECT_EQ(nlohmann::json::parse(text), from_file);
    EXPECT_FALSE(fs::exists(base / "text")); // not even made

    std::vector<std::string> series = quickstart(base / "series");
    series.insert(series.end(), {"--series", "1ms"});
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(series, text), 0);
    EXPECT_EQ(nlohmann::json::parse(text), from_file); // a sampler only reads
    EXPECT_EQ(entries(base / "series"), std::vector<std::string>{"series.csv"});
}

// Given the scenario's text, the run takes it instead of the file it names (a sweep's point
// runs the text its sweep planned from); the name still names it in messages.
TEST(RunCliStats, RunsTheScenarioTextItIsGivenInsteadOfTheFile) {
    const fs::path base = fs::path(::testing::TempDir()) / "run-cli-stats-given";
    fs::remove_all(base);
    std::stringstream file;
    file << std::ifstream(std::string(RINGSIM_SOURCE_DIR) + "/scenarios/quickstart.json").rdbuf();
    const ringsim::config::ScenarioTexts scenario{file.str(), {}};

    std::string from_file;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(quickstart(base / "file"), from_file), 0);

    std::vector<std::string> args = quickstart(base / "given");
    args[0] = (base / "no-such-scenario.json").string();
    std::string given;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, given, &scenario), 0);
    EXPECT_EQ(nlohmann::json::parse(given), nlohmann::json::parse(from_file));

    // A sweep's point: the job hands the texts to its worker's run, and the stats come back.
    std::vector<runner::ChildStatus> status(1);
    runner::run_pool(
        1, 1,
        [&](size_t) {
            return runner::ringsim_stats_job(
                args, {}, 0, std::make_shared<const ringsim::config::ScenarioTexts>(scenario));
        },
        [&](size_t, const runner::ChildStatus& s) {
            status[0] = s;
            return true;
        });
    ASSERT_TRUE(status[0].ok()) << status[0].describe() << status[0].said;
    EXPECT_EQ(nlohmann::json::parse(status[0].answer), nlohmann::json::parse(from_file));

    // The name is the scenario's place too: a histogram file it names and the texts do not
    // hold is read beside it.
    fs::create_directories(base);
    std::ofstream(base / "lat.csv") << "20us,5\n40us,1\n";
    nlohmann::json with_file = nlohmann::json::parse(scenario.scenario);
    with_file["consumer"]["wakeup_latency"] = {{"distribution", "empirical"}, {"file", "lat.csv"}};
    const ringsim::config::ScenarioTexts text{with_file.dump(), {}};
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, given, &text), 0);

    const ringsim::config::ScenarioTexts bad{R"({"duration": "1ms", "session": {"data_pages": 3}})",
                                             {}};
    testing::internal::CaptureStderr();
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, given, &bad), 2);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find(args[0] + ": /session/data_pages: expected"), std::string::npos) << said;
}

// A histogram file among the texts is taken from them, not from the disk: a sweep's point
// runs the bins its id was hashed from though the file changed or went after the plan.
TEST(RunCliStats, TakesAHistogramFileFromTheTextsItIsGiven) {
    const fs::path base = fs::path(::testing::TempDir()) / "run-cli-stats-histogram";
    fs::remove_all(base);
    fs::create_directories(base);
    std::stringstream file;
    file << std::ifstream(std::string(RINGSIM_SOURCE_DIR) + "/scenarios/quickstart.json").rdbuf();
    nlohmann::json doc = nlohmann::json::parse(file.str());
    doc["consumer"]["tail_update"] = "per_record"; // a reader that charges each record
    doc["consumer"]["per_record_cost"] = {{"distribution", "empirical"}, {"file", "cost.csv"}};
    std::vector<std::string> args = quickstart(base / "out");
    args[0] = (base / "scenario.json").string();
    args.insert(args.end(), {"--set", "duration=100ms"}); // long enough for the cost to show

    const std::string bins = "1us,5\n2us,1\n";
    std::ofstream(base / "cost.csv") << bins;
    const ringsim::config::ScenarioTexts on_disk{doc.dump(), {}};
    std::string from_disk;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, from_disk, &on_disk), 0);

    // Edited after the plan, to a cost that loses records: the disk's bins would show.
    std::ofstream(base / "cost.csv") << "900us,1\n";
    std::string edited;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, edited, &on_disk), 0);
    ASSERT_NE(nlohmann::json::parse(edited), nlohmann::json::parse(from_disk));

    ringsim::config::ScenarioTexts planned{doc.dump(), {{(base / "cost.csv").string(), bins}}};
    std::string from_texts;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, from_texts, &planned), 0);
    EXPECT_EQ(nlohmann::json::parse(from_texts), nlohmann::json::parse(from_disk));

    fs::remove(base / "cost.csv"); // gone after the plan
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, from_texts, &planned), 0);
    EXPECT_EQ(nlohmann::json::parse(from_texts), nlohmann::json::parse(from_disk));

    // Without the texts the run reads the disk: the file is gone, the scenario is refused.
    testing::internal::CaptureStderr();
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, from_texts, &on_disk), 2);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("/consumer/per_record_cost/file: expected a readable histogram file"),
              std::string::npos)
        << said;
}

// A sweep's plan and its points meet on the path a histogram file is opened at: a point built
// as the sweep builds it (the spec's scenario name, its --set values) finds every file the
// plan read among the plan's texts, and runs with the file gone from the disk.
TEST(RunCliStats, APointFindsTheHistogramFilesItsPlanRead) {
    namespace sweep = ringsim::platform::sweep;
    const fs::path base = fs::path(::testing::TempDir()) / "run-cli-stats-plan";
    fs::remove_all(base);
    fs::create_directories(base / "scenarios");
    std::stringstream file;
    file << std::ifstream(std::string(RINGSIM_SOURCE_DIR) + "/scenarios/quickstart.json").rdbuf();
    nlohmann::json doc = nlohmann::json::parse(file.str());
    doc["duration"] = "2ms";
    doc["consumer"]["wakeup_latency"] = {{"distribution", "empirical"}, {"file", "lat.csv"}};
    std::ofstream(base / "scenarios" / "s.json") << doc.dump();
    std::ofstream(base / "scenarios" / "lat.csv") << "20us,5\n40us,1\n";
    std::ofstream(base / "scenarios" / "other.csv") << "30us,1\n";
    const nlohmann::json spec = {{"scenario", "scenarios/s.json"},
                                 {"axes",
                                  {{{"path", "consumer.wakeup_latency"},
                                    {"values",
                                     {{{"distribution", "empirical"}, {"file", "lat.csv"}},
                                      {{"distribution", "empirical"}, {"file", "other.csv"}}}}}}}};
    std::ofstream(base / "spec.json") << spec.dump();
    const auto loaded = sweep::load_sweep_spec((base / "spec.json").string(), {});
    ASSERT_TRUE(loaded.spec) << loaded.errors.at(0).message();
    const auto planned = sweep::plan_sweep(*loaded.spec);
    ASSERT_TRUE(planned.plan) << planned.errors.at(0).message();
    ASSERT_EQ(planned.plan->scenario_texts->histograms.size(), 2u);
    fs::remove(base / "scenarios" / "lat.csv");
    fs::remove(base / "scenarios" / "other.csv");
    for (const sweep::Point& p : planned.plan->points) {
        std::vector<std::string> args = {loaded.spec->scenario, "--out", (base / "out").string()};
        for (const auto* sets : {&loaded.spec->sets, &p.sets})
            for (const std::string& set : *sets)
                args.insert(args.end(), {"--set", set});
        std::string stats;
        ringsim::platform::fresh_systemc();
        EXPECT_EQ(ringsim::platform::run_cli_stats(args, stats, planned.plan->scenario_texts.get()),
                  0)
            << p.sets.at(0);
    }
}

// A bad scenario key exits 2 and gives no statistics, as `ringsim run` does.
TEST(RunCliStats, ABadKeyExitsTwoWithoutStats) {
    std::vector<std::string> args =
        quickstart(fs::path(::testing::TempDir()) / "run-cli-stats-bad");
    args.insert(args.end(), {"--set", "session.data_pages=3"});
    std::string text = "untouched";
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, text), 2);
    EXPECT_EQ(text, "untouched");
}
