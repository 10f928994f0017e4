// Runs the ringsim binary under test: `ringsim run` on a scenario of the source tree, with
// more command-line words, handing back what it printed and wrote (its stdout, stats.json
// and violations.json; each run gets a directory of its own, named after the test, the
// process and a counter, as ctest runs a file's cases in parallel processes, removed
// after); or a command that writes a JSON report (`explore`, `matrix`), handing it back;
// or any command, for its exit status and stderr.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ringsim::testing_support {

struct RingsimRun {
    std::string stdout_text;
    nlohmann::json stats;      // stats.json
    nlohmann::json violations; // violations.json
    nlohmann::json run;        // run.json
};

// The value at a dotted path of a JSON object ("records.lost" in stats.json's "total").
inline uint64_t stat_at(const nlohmann::json& j, const std::string& dotted) {
    const nlohmann::json* at = &j;
    std::stringstream path(dotted);
    for (std::string key; std::getline(path, key, '.');)
        at = &at->at(key);
    return at->get<uint64_t>();
}

// A shell command's exit status, what it wrote to stdout and to stderr.
struct CommandOutput {
    int exit_code = -1;
    std::string out, err;
};
inline CommandOutput run_command_output(const std::string& command) {
    static int runs = 0;
    const std::string base = ::testing::TempDir() + "/ringsim-cmdo-" + std::to_string(::getpid()) +
                             "-" + std::to_string(runs++);
    const int status = std::system((command + " > " + base + ".out 2> " + base + ".err").c_str());
    CommandOutput r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream out, err;
    out << std::ifstream(base + ".out").rdbuf();
    err << std::ifstream(base + ".err").rdbuf();
    r.out = out.str();
    r.err = err.str();
    std::filesystem::remove(base + ".out");
    std::filesystem::remove(base + ".err");
    return r;
}

// A shell command's exit status and what it wrote to stderr (its stdout discarded).
struct CommandResult {
    int exit_code = -1;
    std::string err;
};
inline CommandResult run_command(const std::string& command) {
    static int runs = 0;
    const std::string err = ::testing::TempDir() + "/ringsim-cmd-" + std::to_string(::getpid()) +
                            "-" + std::to_string(runs++) + ".err";
    const int status = std::system((command + " > /dev/null 2> " + err).c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream text;
    text << std::ifstream(err).rdbuf();
    r.err = text.str();
    std::filesystem::remove(err);
    return r;
}

inline RingsimRun run_ringsim(const std::string& scenario, const std::string& args = "") {
    static int runs = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name)
        if (c == '/') c = '-';
    const std::string out = ::testing::TempDir() + "/ringsim-" + name + "-" +
                            std::to_string(::getpid()) + "-" + std::to_string(runs++);
    const std::string cmd = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR + "/" +
                            scenario + " " + args + " --out " + out + " > " + out + ".txt";
    std::filesystem::create_directories(out);
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    RingsimRun r;
    std::stringstream text;
    text << std::ifstream(out + ".txt").rdbuf();
    r.stdout_text = text.str();
    std::ifstream stats(out + "/stats.json"), violations(out + "/violations.json"),
        run(out + "/run.json");
    r.stats = nlohmann::json::parse(stats, nullptr, false);
    r.violations = nlohmann::json::parse(violations, nullptr, false);
    r.run = nlohmann::json::parse(run, nullptr, false);
    std::filesystem::remove_all(out);
    std::filesystem::remove(out + ".txt");
    return r;
}

// `ringsim ARGS --json JSON_PATH`, its stdout discarded; expects exit 0 and returns the
// report.
inline nlohmann::json run_ringsim_json(const std::string& args, const std::string& json_path) {
    const std::string cmd =
        std::string(RINGSIM_BINARY) + " " + args + " --json " + json_path + " > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(json_path);
    return nlohmann::json::parse(in);
}

} // namespace ringsim::testing_support
