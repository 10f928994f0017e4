// run_cli_stats() (platform/cli.h), what a sweep's point runs in its worker: the statistics of
// `ringsim run --stats-only` as text, and no file in --out unless --series writes one there.
#include "platform/cli.h"
#include "platform/runner/ringsim_child.h"
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
    const std::string scenario = file.str();

    std::string from_file;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(quickstart(base / "file"), from_file), 0);

    std::vector<std::string> args = quickstart(base / "given");
    args[0] = (base / "no-such-scenario.json").string();
    std::string given;
    ringsim::platform::fresh_systemc();
    ASSERT_EQ(ringsim::platform::run_cli_stats(args, given, &scenario), 0);
    EXPECT_EQ(nlohmann::json::parse(given), nlohmann::json::parse(from_file));

    // A sweep's point: the job hands the text to its worker's run, and the stats come back.
    std::vector<runner::ChildStatus> status(1);
    runner::run_pool(
        1, 1,
        [&](size_t) {
            return runner::ringsim_stats_job(args, {}, 0,
                                             std::make_shared<const std::string>(scenario));
        },
        [&](size_t, const runner::ChildStatus& s) {
            status[0] = s;
            return true;
        });
    ASSERT_TRUE(status[0].ok()) << status[0].describe() << status[0].said;
    EXPECT_EQ(nlohmann::json::parse(status[0].answer), nlohmann::json::parse(from_file));

    // The name is the scenario's place too: a histogram file it names is read beside it.
    fs::create_directories(base);
    std::ofstream(base / "lat.csv") << "20us,5\n40us,1\n";
    nlohmann::json with_file = nlohmann::json::parse(scenario);
    with_file["consumer"]["wakeup_latency"] = {{"distribution", "empirical"}, {"file", "lat.csv"}};
    const std::string text = with_file.dump();
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, given, &text), 0);

    const std::string bad = R"({"duration": "1ms", "session": {"data_pages": 3}})";
    testing::internal::CaptureStderr();
    ringsim::platform::fresh_systemc();
    EXPECT_EQ(ringsim::platform::run_cli_stats(args, given, &bad), 2);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find(args[0] + ": /session/data_pages: expected"), std::string::npos) << said;
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
