// platform/commands.h: every command's usage comes from the one table, and what ringsim
// prints on a bad flag is that command's usage, with the shared exit code 2.
#include "platform/cli.h"
#include "platform/commands.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

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

// --stats-only (each point of a sweep): the same stats.json as a whole run's, and nothing
// else: no run.json or violations.json (an earlier run's removed, not left beside it), no
// summary.
TEST(Commands, StatsOnlyWritesTheSameStatsAndNothingElse) {
    const std::string whole = ::testing::TempDir() + "/stats-only-whole";
    const std::string alone = ::testing::TempDir() + "/stats-only-alone";
    std::filesystem::remove_all(whole);
    std::filesystem::remove_all(alone);
    const std::string run = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
                            "/scenarios/quickstart.json --set duration=2ms --seed 7 --out ";
    ASSERT_EQ(ringsim::testing_support::run_command(run + whole).exit_code, 0);
    ASSERT_EQ(ringsim::testing_support::run_command(run + alone).exit_code, 0);
    ASSERT_TRUE(std::filesystem::exists(alone + "/run.json"));
    const std::string said = alone + ".txt";
    const auto r =
        ringsim::testing_support::run_command("(" + run + alone + " --stats-only > " + said + ")");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::stringstream out;
    out << std::ifstream(said).rdbuf();
    EXPECT_EQ(out.str(), "ringsim: wrote stats.json in " + alone + "\n");
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(alone))
        files.push_back(entry.path().filename().string());
    EXPECT_EQ(files, std::vector<std::string>{"stats.json"});
    const auto stats = [](const std::string& dir) {
        std::ifstream in(dir + "/stats.json");
        return nlohmann::json::parse(in);
    };
    EXPECT_EQ(stats(alone), stats(whole));
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

// The run loop's test switches (run_loop.h) take 0 or 1: any other value is refused before
// the run, naming the variable, what it takes and what it found, where it once chose a way
// of waiting silently; 0, 1 and empty run. Every command that simulates refuses it first,
// in its own name (a sweep's points would each fail, a lesson write its scenario).
TEST(Commands, ARunLoopSwitchOtherThanZeroOrOneExitsTwoNamingIt) {
    for (const std::string cmd : {"run", "lesson", "sweep", "explore", "matrix"}) {
        const auto r = ringsim::testing_support::run_command(
            "RINGSIM_PARK=on " + std::string(RINGSIM_BINARY) + " " + cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find("ringsim " + cmd +
                             ": environment variable RINGSIM_PARK: expected "
                             "0 or 1 (or unset), found \"on\""),
                  std::string::npos)
            << r.err;
    }
    const std::string run = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
                            "/scenarios/quickstart.json --set duration=1ms --out " +
                            ::testing::TempDir() + "/run-loop-switch";
    for (const std::string name : {"RINGSIM_NO_LEAD", "RINGSIM_PARK"}) {
        for (const std::string bad : {"yes", "2", "true"}) {
            const auto r = ringsim::testing_support::run_command(name + "=" + bad + " " + run);
            EXPECT_EQ(r.exit_code, 2) << name << "=" << bad << ": " << r.err;
            EXPECT_NE(r.err.find("ringsim run: environment variable " + name +
                                 ": expected 0 or 1 (or unset), found \"" + bad + "\""),
                      std::string::npos)
                << r.err;
        }
        for (const std::string good : {"0", "1", ""})
            EXPECT_EQ(
                ringsim::testing_support::run_command(name + "=" + good + " " + run).exit_code, 0)
                << name << "=" << good;
    }
}

// Starts `ringsim run SCENARIO --progress ...`, waits for its first progress line (the
// simulation is under way), sends `sig` and returns the exit status; `err` gets what it
// printed (stdout and stderr).
int run_until_signal(const std::string& scenario, const std::string& out, int sig, std::string& err,
                     const std::vector<std::string>& extra = {}) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return -1;
    const std::string bin = RINGSIM_BINARY;
    std::vector<std::string> args = {bin, "run",   scenario,         "--out",
                                     out, "--set", "duration=1000s", "--progress"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    // A paused SystemC simulation leaves what its processes hold to the process's exit;
    // LeakSanitizer (the sanitizer pass) would report that at exit, ahead of the exit status
    // and stdout this test reads.
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (spawned != 0) return -1;
    char buf[4096];
    ssize_t n = 0;
    while (err.find("ringsim: simulated") == std::string::npos &&
           (n = read(pipe_fds[0], buf, sizeof buf)) > 0)
        err.append(buf, size_t(n));
    kill(pid, sig);
    while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0)
        err.append(buf, size_t(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

// Issue 14 §3: SIGINT and SIGTERM stop a run where it is; its books close there, exactly
// (records and trace bytes still in flight counted as such, no accounting violation), and
// stats.json and run.json say so.
TEST(Commands, ASignalStopsARunWithItsBooksClosedAndItsOutputsWritten) {
    struct Case {
        const char* scenario;
        int sig;
        int exit_code;
        const char* name;
    };
    for (const Case c : {Case{"quickstart.json", SIGINT, 130, "SIGINT"},
                         Case{"aux-full.json", SIGTERM, 143, "SIGTERM"}}) {
        const std::string out = ::testing::TempDir() + "/stopped-by-" + c.name;
        std::filesystem::remove_all(out);
        std::string err;
        const int code = run_until_signal(
            std::string(RINGSIM_SOURCE_DIR) + "/scenarios/" + c.scenario, out, c.sig, err);
        EXPECT_EQ(code, c.exit_code) << c.scenario << "\n" << err;
        std::ifstream run_file(out + "/run.json"), stats_file(out + "/stats.json");
        ASSERT_TRUE(run_file && stats_file) << c.scenario << "\n" << err;
        const auto run = nlohmann::json::parse(run_file);
        const auto stats = nlohmann::json::parse(stats_file);
        EXPECT_EQ(run["completed"], false);
        EXPECT_EQ(run["stopped_by"], c.name);
        EXPECT_LT(run["simulated_time_ps"].get<uint64_t>(), uint64_t(1000) * 1000000000000u);
        EXPECT_EQ(run["violations"], 0) << c.scenario;
        const auto& r = stats["total"]["records"];
        EXPECT_GT(r["produced"].get<uint64_t>(), 0u);
        EXPECT_EQ(r["produced"].get<uint64_t>(),
                  r["delivered"].get<uint64_t>() + r["lost"].get<uint64_t>() +
                      r["unread"].get<uint64_t>() + r["overwritten"].get<uint64_t>() +
                      r["in_flight"].get<uint64_t>())
            << stats["total"].dump(1);
        if (stats["total"].contains("aux")) {
            const auto& b = stats["total"]["aux"]["bytes"];
            EXPECT_EQ(b["produced"].get<uint64_t>(),
                      b["delivered"].get<uint64_t>() + b["lost"].get<uint64_t>() +
                          b["unread"].get<uint64_t>() + b["corrupted"].get<uint64_t>() +
                          b["in_flight"].get<uint64_t>());
        }
        EXPECT_NE(err.find(std::string("stopped by ") + c.name), std::string::npos) << err;
    }
}

// --stats-only keeps the summary's warning: a run a signal stopped says so, whatever else it
// leaves out.
TEST(Commands, AStoppedRunWithStatsOnlyStillSaysSo) {
    const std::string out = ::testing::TempDir() + "/stopped-stats-only";
    std::filesystem::remove_all(out);
    std::string err;
    const int code =
        run_until_signal(std::string(RINGSIM_SOURCE_DIR) + "/scenarios/quickstart.json", out,
                         SIGINT, err, {"--stats-only"});
    EXPECT_EQ(code, 130) << err;
    EXPECT_TRUE(std::filesystem::exists(out + "/stats.json"));
    EXPECT_FALSE(std::filesystem::exists(out + "/run.json"));
    EXPECT_NE(err.find("ringsim: WARNING: stopped by SIGINT at "), std::string::npos) << err;
}

} // namespace
