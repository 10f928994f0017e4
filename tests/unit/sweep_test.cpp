// `ringsim sweep` and `ringsim merge` end to end, through the real binary: the same results
// whatever the job count and sharding, resume after SIGKILL at any moment, refusal of another
// spec's directory, failed points as lines with their reason, shards from Slurm's variables,
// the answer file and the progress lines. Reduced (tests/support/reduced.h), the point past
// its time limit simulates 1 s instead of 10 s (the slow build passes the limit as surely).
#include "tests/support/reduced.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string read_file(const fs::path& f) {
    std::ifstream in(f);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string quoted(const std::string& s) {
    return "'" + s + "'";
}

class SweepTest : public testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "sweep_test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir = pattern;
        fs::copy_file(fs::path(RINGSIM_SOURCE_DIR) / "scenarios/slow-consumer.json",
                      dir / "base.json");
        write_spec("spec.json", kSpec);
    }
    void TearDown() override { fs::remove_all(dir); }

    void write_spec(const std::string& name, const json& j) {
        std::ofstream(dir / name) << j.dump(2);
    }

    // Runs `ringsim ARGS` in the scratch directory, with `env` before it.
    Result ringsim(const std::string& args, const std::string& env = "") {
        const std::string cmd = "cd " + quoted(dir.string()) + " && " + env + " " +
                                quoted(RINGSIM_BINARY) + " " + args + " >out.txt 2>err.txt";
        const int status = std::system(cmd.c_str());
        Result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = read_file(dir / "out.txt");
        r.err = read_file(dir / "err.txt");
        return r;
    }

    // (point, replicate) -> the line's stats, over every results file of DIR; counts lines.
    std::map<std::string, json> results(const std::string& out, size_t* lines = nullptr) {
        std::map<std::string, json> by_item;
        size_t n = 0;
        for (const auto& e : fs::directory_iterator(dir / out)) {
            if (e.path().extension() != ".jsonl") continue;
            std::ifstream in(e.path());
            for (std::string text; std::getline(in, text);) {
                const json line = json::parse(text);
                ++n;
                by_item[line["point"].get<std::string>() + "#" +
                        std::to_string(line["replicate"].get<int>())] = line["stats"];
            }
        }
        if (lines) *lines = n;
        return by_item;
    }

    size_t line_count(const fs::path& file) {
        std::ifstream in(file);
        size_t n = 0;
        for (std::string text; std::getline(in, text);)
            ++n;
        return n;
    }

    fs::path dir;
    // slow-consumer.json: 3 buffer sizes x 2 rates x 2 replicates, 12 runs of 2 ms.
    const json kSpec = {
        {"scenario", "base.json"},
        {"set", {{"duration", "2ms"}}},
        {"axes",
         {{{"path", "session.data_pages"}, {"values", {1, 2, 8}}},
          {{"path", "workload.writers.0.rate"}, {"values", {"20kHz", "100kHz"}}}}},
        {"replicates", 2},
        {"seed", 9},
        {"target",
         {{"metric", "total.records.lost"}, {"at_most", 0}, {"minimize", "session.data_pages"}}}};
};

} // namespace

TEST_F(SweepTest, SameResultsWithOneJobTwoJobsAndFourShards) {
    ASSERT_EQ(ringsim("sweep spec.json --out one --jobs 1").code, 0);
    const Result two = ringsim("sweep spec.json --out two --jobs 2");
    ASSERT_EQ(two.code, 0) << two.err;
    for (int i = 0; i < 4; ++i) {
        const Result r =
            ringsim("sweep spec.json --out shards --jobs 2 --shard " + std::to_string(i) + "/4");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(fs::exists(dir / "shards" / ("points-" + std::to_string(i) + "-of-4.jsonl")));
        const Result d = ringsim("sweep spec.json --out d" + std::to_string(i) + " --shard " +
                                 std::to_string(i) + "/4");
        ASSERT_EQ(d.code, 0) << d.err;
    }
    size_t lines = 0;
    const auto one = results("one", &lines);
    EXPECT_EQ(one.size(), 12u);
    EXPECT_EQ(lines, 12u);
    EXPECT_EQ(results("two"), one);
    EXPECT_EQ(results("shards", &lines), one);
    EXPECT_EQ(lines, 12u);
    // Losses differ between points, so the comparison means something.
    std::set<json> lost;
    for (const auto& [item, stats] : one)
        lost.insert(stats["total"]["records"]["lost"]);
    EXPECT_GT(lost.size(), 2u);

    ASSERT_EQ(ringsim("merge one --json one.json --csv one.csv --answer one-answer.csv").code, 0);
    const Result m = ringsim("merge d0 d1 d2 d3 --json d.json --csv d.csv --answer d-answer.csv");
    ASSERT_EQ(m.code, 0) << m.err;
    EXPECT_EQ(read_file(dir / "one.json"), read_file(dir / "d.json"));
    EXPECT_EQ(read_file(dir / "one.csv"), read_file(dir / "d.csv"));
    EXPECT_EQ(read_file(dir / "one-answer.csv"), read_file(dir / "d-answer.csv"));
    EXPECT_EQ(read_file(dir / "one" / "answer.csv"), read_file(dir / "one-answer.csv"));
    const json merged = json::parse(read_file(dir / "one.json"));
    ASSERT_EQ(merged["rows"].size(), 6u);
    EXPECT_EQ(merged["rows"][0]["replicates"], 2);
    EXPECT_TRUE(merged["rows"][0]["metrics"]["total.records.lost"]["ci95"].is_array());
    // A shard's directory alone is incomplete, and its summary says so.
    const Result alone = ringsim("merge d0");
    EXPECT_EQ(alone.code, 0);
    EXPECT_NE(alone.err.find("have no result"), std::string::npos) << alone.err;
}

// One worker process runs every point of a one-job sweep, one after another: each point's
// stats are still those of its own `ringsim run` in a process of its own, with the seed and
// settings its line names (platform/runner/process_pool.h, reusable jobs).
TEST_F(SweepTest, EachPointIsTheRunOfItsOwnProcess) {
    ASSERT_EQ(ringsim("sweep spec.json --out one --jobs 1").code, 0);
    size_t compared = 0;
    for (const auto& e : fs::directory_iterator(dir / "one")) {
        if (e.path().extension() != ".jsonl") continue;
        std::ifstream in(e.path());
        for (std::string text; std::getline(in, text);) {
            const json line = json::parse(text);
            std::string args = "run base.json --seed " +
                               std::to_string(line["seed"].get<uint64_t>()) +
                               " --set duration=2ms --out alone";
            for (const auto& [path, value] : line["axes"].items())
                args += " --set " + path + "=" +
                        (value.is_string() ? value.get<std::string>() : value.dump());
            const Result r = ringsim(args);
            ASSERT_EQ(r.code, 0) << args << ": " << r.err;
            EXPECT_EQ(json::parse(read_file(dir / "alone" / "stats.json")), line["stats"]) << args;
            ++compared;
        }
    }
    EXPECT_EQ(compared, 12u);
}

// Kill the sweep (SIGKILL) with nothing written, part-way, and with a torn last line; each
// rerun of the same command ends with every (point, replicate) exactly once, as a run never
// killed gives them.
TEST_F(SweepTest, ResumesAfterSigkillAtAnyMoment) {
    // Runs of 20 ms simulated, so that the kill lands while the sweep still has runs to do.
    json slower = kSpec;
    slower["set"]["duration"] = "20ms";
    write_spec("slower.json", slower);
    ASSERT_EQ(ringsim("sweep slower.json --out clean --jobs 2").code, 0);
    const auto clean = results("clean");
    for (const size_t kill_after : {size_t(0), size_t(3), size_t(7)}) {
        const std::string out = "killed" + std::to_string(kill_after);
        const fs::path file = dir / out / "points-0-of-1.jsonl";
        const pid_t pid = fork();
        if (pid == 0) {
            chdir(dir.c_str());
            freopen("/dev/null", "w", stderr);
            freopen("/dev/null", "w", stdout);
            execl(RINGSIM_BINARY, RINGSIM_BINARY, "sweep", "slower.json", "--out", out.c_str(),
                  "--jobs", "2", static_cast<char*>(nullptr));
            _exit(127);
        }
        for (int i = 0; i < 3000 && (kill_after == 0 ? !fs::exists(dir / out / "sweep.json")
                                                     : line_count(file) < kill_after);
             ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_LT(line_count(file), 12u) << "the sweep ended before the kill";
        if (kill_after == 7) std::ofstream(file, std::ios::app) << R"({"point": "0123", "repl)";
        const Result r = ringsim("sweep slower.json --out " + out + " --jobs 2");
        ASSERT_EQ(r.code, 0) << r.err;
        size_t lines = 0;
        EXPECT_EQ(results(out, &lines), clean) << "killed after " << kill_after;
        EXPECT_EQ(lines, 12u) << "killed after " << kill_after;
        EXPECT_FALSE(fs::exists(dir / out / ".work-0-of-1"));
    }
}

TEST_F(SweepTest, AnotherSpecIntoTheSameDirectoryIsRefusedUnlessForced) {
    ASSERT_EQ(ringsim("sweep spec.json --out d --jobs 2").code, 0);
    json other = kSpec;
    other["replicates"] = 1;
    write_spec("other.json", other);
    const Result refused = ringsim("sweep other.json --out d");
    EXPECT_EQ(refused.code, 2);
    EXPECT_NE(refused.err.find("holds the results of another sweep"), std::string::npos)
        << refused.err;
    EXPECT_EQ(ringsim("sweep spec.json --out d --set consumer.cpu=2").code, 2);
    const Result forced = ringsim("sweep other.json --out d --force --jobs 2");
    ASSERT_EQ(forced.code, 0) << forced.err;
    size_t lines = 0;
    EXPECT_EQ(results("d", &lines).size(), 6u);
    EXPECT_EQ(lines, 6u);
    // Directories of different sweeps do not merge.
    ASSERT_EQ(ringsim("sweep spec.json --out e --jobs 2 --shard 0/6").code, 0);
    const Result mixed = ringsim("merge d e");
    EXPECT_EQ(mixed.code, 2);
    EXPECT_NE(mixed.err.find("holds another sweep"), std::string::npos) << mixed.err;
}

TEST_F(SweepTest, APointPastItsTimeLimitIsAFailedLineWithItsReason) {
    const std::string slow = ringsim::testing_support::reduced() ? "1s" : "10s";
    json spec = {{"scenario", "base.json"},
                 {"axes", {{{"path", "duration"}, {"values", {"1ms", slow}}}}}};
    write_spec("slow.json", spec);
    const Result r = ringsim("sweep slow.json --out slow --jobs 2 --timeout 0.5");
    EXPECT_EQ(r.code, 3) << r.err;
    std::ifstream in(dir / "slow" / "points-0-of-1.jsonl");
    std::map<std::string, json> by_duration;
    for (std::string text; std::getline(in, text);) {
        const json line = json::parse(text);
        by_duration[line["axes"]["duration"]] = line;
    }
    ASSERT_EQ(by_duration.size(), 2u);
    EXPECT_EQ(by_duration["1ms"]["status"], "ok");
    EXPECT_EQ(by_duration[slow]["status"], "failed");
    EXPECT_EQ(by_duration[slow]["reason"], "timed out after 0.5 s (killed)");
    EXPECT_FALSE(by_duration[slow].contains("stats"));
    EXPECT_NE(r.err.find("1 failed"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("1 failed"), std::string::npos) << r.out;
    // A plain rerun keeps the failure; --retry-failed redoes it, and merge keeps the run
    // that completed.
    EXPECT_EQ(ringsim("sweep slow.json --out slow --jobs 2").code, 3);
    const Result retry =
        ringsim("sweep slow.json --out slow --jobs 2 --timeout 120 --retry-failed");
    EXPECT_EQ(retry.code, 0) << retry.err;
    EXPECT_EQ(line_count(dir / "slow" / "points-0-of-1.jsonl"), 3u);
    ASSERT_EQ(ringsim("merge slow --json slow.json").code, 0);
    // Held in a variable: a range-for over a part of a temporary outlives the temporary.
    const json merged = json::parse(read_file(dir / "slow.json"));
    for (const json& row : merged["rows"]) {
        EXPECT_EQ(row["replicates"], 1);
        EXPECT_EQ(row["failed"], 0);
    }
}

TEST_F(SweepTest, SlurmArrayVariablesChooseTheShard) {
    const Result r =
        ringsim("sweep spec.json --out s --jobs 2",
                "SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=5");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "s" / "points-1-of-4.jsonl"));
    EXPECT_EQ(line_count(dir / "s" / "points-1-of-4.jsonl"), 3u); // items 1, 5, 9
    // Slices were taken before: the summary waits for the other shards.
    EXPECT_NE(r.out.find("not in s yet"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "s" / "answer.csv"));
    const Result bad = ringsim("sweep spec.json --out s", "SLURM_ARRAY_TASK_ID=9 "
                                                          "SLURM_ARRAY_TASK_COUNT=4");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("SLURM_ARRAY_TASK_ID=9 is not within"), std::string::npos) << bad.err;
    // --shard wins over the environment.
    ASSERT_EQ(ringsim("sweep spec.json --out s2 --shard 0/2", "SLURM_ARRAY_TASK_ID=1 "
                                                              "SLURM_ARRAY_TASK_COUNT=4")
                  .code,
              0);
    EXPECT_TRUE(fs::exists(dir / "s2" / "points-0-of-2.jsonl"));
}

// The answer, worked out here from the result lines on their own: per rate, the smallest
// data_pages whose two replicates both lost nothing (the seeds, hence the figures, follow
// the points' ids, which change whenever a scenario key is added).
TEST_F(SweepTest, TheAnswerAndTheProgressLines) {
    const Result r = ringsim("sweep spec.json --out a --jobs 2");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("ringsim sweep: 12/12 done, 0 failed, "), std::string::npos) << r.err;
    std::map<std::string, std::map<int, bool>> clean; // rate -> pages -> every replicate clean
    std::ifstream in(dir / "a" / "points-0-of-1.jsonl");
    for (std::string text; std::getline(in, text);) {
        const json line = json::parse(text);
        const std::string rate = line["axes"]["workload.writers.0.rate"];
        const int pages = line["axes"]["session.data_pages"];
        const bool none_lost = line["stats"]["total"]["records"]["lost"] == 0;
        clean[rate].emplace(pages, true);
        clean[rate][pages] = clean[rate][pages] && none_lost;
    }
    std::string expected_text = "smallest session.data_pages with total.records.lost <= 0 in "
                                "every replicate:\n";
    std::string expected_csv = "workload.writers.0.rate,session.data_pages,status\n";
    size_t answered = 0;
    for (const std::string rate : {"20kHz", "100kHz"}) {
        std::string value;
        for (const auto& [pages, ok] : clean[rate]) // std::map: ascending pages
            if (ok && value.empty()) value = std::to_string(pages);
        answered += !value.empty();
        expected_text += "  workload.writers.0.rate=" + rate + ": " +
                         (value.empty() ? "none in range" : value) + "\n";
        expected_csv += rate + "," + value + "," + (value.empty() ? "none in range" : "ok") + "\n";
    }
    EXPECT_EQ(answered, 2u) << "the spec should have an answer for both rates";
    EXPECT_NE(r.out.find(expected_text), std::string::npos) << r.out << "\nexpected\n"
                                                            << expected_text;
    EXPECT_EQ(read_file(dir / "a" / "answer.csv"), expected_csv);
    // The losses differ between rates, so the answer is not the same everywhere.
    EXPECT_NE(clean["20kHz"], clean["100kHz"]);
    // Rerunning finds everything done and runs nothing.
    const Result again = ringsim("sweep spec.json --out a --jobs 2");
    EXPECT_EQ(again.code, 0);
    EXPECT_NE(again.err.find("12 already done, 0 to run"), std::string::npos) << again.err;
    // --list prints one line per point: its id, then its overrides.
    const Result list = ringsim("sweep spec.json --list");
    EXPECT_EQ(list.code, 0);
    EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 6);
    EXPECT_NE(list.out.find("\tsession.data_pages=1\tworkload.writers.0.rate=\"20kHz\"\n"),
              std::string::npos)
        << list.out;
}

TEST_F(SweepTest, BadFlagsExitTwo) {
    for (const std::string& args : std::vector<std::string>{
             "sweep", "sweep spec.json", "sweep spec.json --out x --jobs 0",
             "sweep spec.json --out x --shard 4/4", "sweep spec.json --out x --shard 1",
             "sweep spec.json --out x --timeout -1", "sweep spec.json --out x --bogus", "merge",
             "merge nowhere", "sweep nowhere.json --out x",
             "sweep " + std::string(RINGSIM_SOURCE_DIR) +
                 "/tests/config/bad-sweeps/unknown_key.json --list",
             "sweep " + std::string(RINGSIM_SOURCE_DIR) +
                 "/tests/config/bad-sweeps/axis_value_breaks_a_kernel_rule.json --out x"}) {
        const Result r = ringsim(args);
        EXPECT_EQ(r.code, 2) << args << ": " << r.err;
        EXPECT_FALSE(r.err.empty()) << args;
    }
}

// With a series, each line carries its steady figures (after the warm-up, before the drain),
// and they can be metrics and targets.
TEST_F(SweepTest, SteadyFiguresFromASeries) {
    json spec = kSpec;
    spec["set"]["duration"] = "5ms";
    spec["series"] = {{"interval", "1ms"}, {"warmup", "1ms"}};
    spec["metrics"] = {"steady.total.records.lost_fraction", "total.records.lost_fraction"};
    spec["target"]["metric"] = "steady.total.records.lost_fraction";
    write_spec("steady.json", spec);
    const Result r = ringsim("sweep steady.json --out st --jobs 2");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(dir / "st" / "points-0-of-1.jsonl");
    size_t lines = 0, lossy = 0;
    for (std::string text; std::getline(in, text); ++lines) {
        const json line = json::parse(text);
        const json& steady = line["steady"];
        EXPECT_DOUBLE_EQ(steady["window_s"].get<double>(), 4e-3); // (1, 5] ms
        const json& all = line["stats"]["total"]["records"];
        EXPECT_LT(steady["total"]["records"]["produced"], all["produced"]);
        EXPECT_LE(steady["total"]["records"]["lost"], all["lost"]);
        lossy += steady["total"]["records"]["lost"] > 0;
    }
    EXPECT_EQ(lines, 12u);
    EXPECT_GT(lossy, 0u);
    EXPECT_NE(r.out.find("steady.total.records.lost_fraction <= 0 in every replicate"),
              std::string::npos)
        << r.out;
}
