// platform/commands.h: every command's usage comes from the one table, and what ringsim
// prints on a bad flag is that command's usage, with the shared exit code 2.
#include "platform/cli.h"
#include "platform/commands.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {

using ringsim::platform::usage;

const char* const kCommands[] = {"run",   "validate", "explore", "matrix", "litmus",
                                 "sweep", "merge",    "params",  "stats"};

TEST(Commands, RingsimsUsageListsEveryCommandAndEachHasItsOwn) {
    const std::string all = usage("");
    for (const std::string cmd : kCommands) {
        const bool listed = all.find("\n  " + cmd + " ") != std::string::npos ||
                            all.find("\n  " + cmd + "\n") != std::string::npos;
        EXPECT_TRUE(listed) << cmd;
        const std::string own = usage(cmd);
        EXPECT_EQ(own.rfind("usage: ringsim " + cmd, 0), 0u) << own;
        EXPECT_NE(own.find("exit codes: 0 done"), std::string::npos) << own;
    }
    EXPECT_EQ(usage("no-such-command"), all);
}

TEST(Commands, ABadFlagPrintsThatCommandsUsageAndExitsTwo) {
    for (const std::string cmd :
         {"run", "validate", "explore", "matrix", "litmus", "sweep", "merge"}) {
        const auto r = ringsim::testing_support::run_command(std::string(RINGSIM_BINARY) + " " +
                                                             cmd + " --no-such-flag");
        EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find("usage: ringsim " + cmd), std::string::npos) << cmd << ": " << r.err;
    }
}

// A flag the parser takes but the usage does not show is a flag nobody finds.
TEST(Commands, RunsUsageShowsEveryFlagItsParserAccepts) {
    const std::string own = usage("run");
    const auto flags = ringsim::platform::run_flags();
    EXPECT_GE(flags.size(), 7u);
    for (const std::string& flag : flags)
        EXPECT_NE(own.find(flag + " "), std::string::npos) << flag << " missing from\n" << own;
}

// --perf-data into a place that cannot be written: exit 2 before simulating, with the
// reason from the system, and no run directory filled.
TEST(Commands, AnUnwritablePerfDataPathExitsTwoWithTheReason) {
    const std::string out = ::testing::TempDir() + "/unwritable-perf-data";
    const auto r = ringsim::testing_support::run_command(
        std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
        "/scenarios/quickstart.json --out " + out + " --perf-data /nonexistent-dir/perf.data");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--perf-data: cannot create /nonexistent-dir/perf.data: No such file or "
                         "directory"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/stats.json"));
}

// The output directory is made ready before the run: outputs of an earlier run in it are
// removed (run.json lists what this run wrote), and each file is written whole or not at all
// (a temporary file renamed into place: none is left behind).
TEST(Commands, ARunReplacesAnEarlierRunsOutputsAndListsItsOwn) {
    const std::string out = ::testing::TempDir() + "/outputs-replaced";
    std::filesystem::remove_all(out);
    const std::string run = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
                            "/scenarios/quickstart.json --set duration=1ms --out " + out;
    ASSERT_EQ(ringsim::testing_support::run_command(run + " --series 100us").exit_code, 0);
    ASSERT_TRUE(std::filesystem::exists(out + "/series.csv"));
    const auto r = ringsim::testing_support::run_command(run);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/series.csv")) << "an earlier run's, left stale";
    std::ifstream in(out + "/run.json");
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("outputs"), nlohmann::json({"stats.json", "run.json", "violations.json"}));
    for (const auto& entry : std::filesystem::directory_iterator(out))
        EXPECT_NE(entry.path().filename().string().front(), '.') << "left behind: " << entry.path();
}

// A directory that cannot take a file is refused before simulating, with the reason.
TEST(Commands, AnUnwritableOutputDirectoryExitsTwoBeforeTheRun) {
    const auto r = ringsim::testing_support::run_command(
        std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
        "/scenarios/quickstart.json --out /proc/self");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("ringsim run: cannot write into /proc/self: "), std::string::npos)
        << r.err;
}

} // namespace
