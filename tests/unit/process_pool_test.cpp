// The process runner of explore, matrix and sweep (platform/runner/process_pool.h): programs
// and forked functions as children, their stderr, exit codes and signals, parallelism,
// stopping, interruption, and the wall-clock limit.
#include "platform/runner/process_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>

using namespace ringsim::platform::runner;
namespace fs = std::filesystem;

namespace {

class PoolTest : public testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "pool_test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir = pattern;
    }
    void TearDown() override { fs::remove_all(dir); }
    fs::path dir;
};

} // namespace

TEST_F(PoolTest, PoolCapturesStderrExitCodesAndSignals) {
    const std::vector<std::string> scripts = {"echo oops >&2; exit 3", "echo quiet",
                                              "kill -SEGV $$"};
    std::vector<ChildStatus> status(scripts.size());
    std::vector<std::string> said(scripts.size());
    const PoolEnd end = run_pool(
        scripts.size(), 2,
        [&](size_t i) {
            return Job{{"/bin/sh", "-c", scripts[i]}, {}, dir / std::to_string(i)};
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            std::ifstream in(dir / std::to_string(i) / "stderr.txt");
            std::getline(in, said[i]);
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    EXPECT_EQ(status[0].exit_code, 3);
    EXPECT_EQ(said[0], "oops");
    EXPECT_EQ(status[1].exit_code, 0);
    EXPECT_EQ(said[1], ""); // stdout is not stderr
    EXPECT_EQ(status[2].signal, 11);
    EXPECT_EQ(status[2].describe().rfind("killed by signal 11", 0), 0u);
}

// Two children that each wait for the other to start can only both succeed when the pool
// really runs them at the same time (no wall-clock assertion involved).
TEST_F(PoolTest, PoolRunsJobsInParallel) {
    const auto handshake = [&](const std::string& mine, const std::string& theirs) {
        return "touch " + (dir / mine).string() + "; i=0; while [ ! -e " + (dir / theirs).string() +
               " ]; do i=$((i+1)); [ $i -gt 1000 ] && exit 1; sleep 0.01; done";
    };
    const std::vector<std::string> scripts = {handshake("a", "b"), handshake("b", "a")};
    std::vector<int> codes(2, -1);
    run_pool(
        2, 2,
        [&](size_t i) {
            return Job{{"/bin/sh", "-c", scripts[i]}, {}, dir / "pool"};
        },
        [&](size_t i, const ChildStatus& s) {
            codes[i] = s.exit_code;
            return true;
        });
    EXPECT_EQ(codes, (std::vector<int>{0, 0}));
}

TEST_F(PoolTest, PoolStopsStartingJobsWhenAsked) {
    std::vector<size_t> started;
    const PoolEnd end = run_pool(
        10, 1,
        [&](size_t i) {
            started.push_back(i);
            return Job{{"/bin/true"}, {}, dir / "stop"};
        },
        [&](size_t i, const ChildStatus&) { return i < 2; });
    EXPECT_EQ(end, PoolEnd::stopped);
    EXPECT_EQ(started, (std::vector<size_t>{0, 1, 2}));
}

// Ctrl-C or a kill while the pool runs must end its children and return, so that the
// commands can remove their temporary files. The first child interrupts the test process.
TEST_F(PoolTest, PoolEndsItsChildrenWhenInterrupted) {
    size_t started = 0, ended = 0;
    const PoolEnd end = run_pool(
        10, 2,
        [&](size_t i) {
            ++started;
            const std::string script = i == 0 ? "kill -INT $PPID; exec sleep 30" : "exec sleep 30";
            return Job{{"/bin/sh", "-c", script}, {}, dir / "interrupt"};
        },
        [&](size_t, const ChildStatus&) {
            ++ended;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::interrupted);
    EXPECT_EQ(started, 2u);
    EXPECT_EQ(ended, 0u); // the terminated children are not reported as results
}

// A forked function is a child like a program: its return value is the exit code, what it
// writes on stderr lands in stderr.txt, an exception is a model error (exit 3), and the
// parent's state is the child's own copy.
TEST_F(PoolTest, ForkedFunctionsAreChildrenWithExitCodesAndStderr) {
    int parent_value = 7;
    std::vector<ChildStatus> status(3);
    std::vector<std::string> said(3);
    const PoolEnd end = run_pool(
        3, 2,
        [&](size_t i) {
            Job job;
            job.dir = dir / std::to_string(i);
            job.body = [i, &parent_value]() -> int {
                parent_value = 99; // the child's copy only
                if (i == 1) throw std::runtime_error("boom");
                if (i == 2) raise(SIGABRT);
                std::cerr << "child " << i << " saw " << 7 << "\n";
                return 5;
            };
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            said[i] = read_text(dir / std::to_string(i) / "stderr.txt");
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    EXPECT_EQ(parent_value, 7);
    EXPECT_EQ(status[0].exit_code, 5);
    EXPECT_EQ(said[0], "child 0 saw 7\n");
    EXPECT_EQ(status[1].exit_code, 3);
    EXPECT_EQ(said[1], "ringsim: model error: boom\n");
    EXPECT_EQ(status[2].signal, SIGABRT);
    EXPECT_FALSE(status[2].ok());
    EXPECT_TRUE(status[0].wall_s >= 0);
}

// A child past its wall-clock limit is killed and reported as timed out; the others are not
// affected by its limit.
TEST_F(PoolTest, ChildrenPastTheirLimitAreKilledAndSaySo) {
    std::vector<ChildStatus> status(2);
    run_pool(
        2, 2,
        [&](size_t i) {
            Job job{{"/bin/sh", "-c", i == 0 ? "exec sleep 30" : "exit 0"}, {}, dir / "t", 0};
            job.timeout_s = 0.2;
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_TRUE(status[0].timed_out);
    EXPECT_EQ(status[0].signal, SIGKILL);
    EXPECT_EQ(status[0].describe(), "timed out after 0.2 s (killed)");
    EXPECT_FALSE(status[1].timed_out);
    EXPECT_TRUE(status[1].ok());
}

// A child that dies of SIGTERM, SIGINT or SIGHUP the pool did not send was hit by what was
// meant for the whole study (scancel signals every process of a job; a terminal's Ctrl-C
// its foreground group): the pool is interrupted, and that death is no result.
TEST_F(PoolTest, AChildKilledFromOutsideInterruptsThePool) {
    size_t ended = 0;
    const PoolEnd end = run_pool(
        6, 2,
        [&](size_t i) {
            const std::string script = i == 0 ? "kill -TERM $$" : "exec sleep 30";
            return Job{{"/bin/sh", "-c", script}, {}, dir / "outside"};
        },
        [&](size_t, const ChildStatus&) {
            ++ended;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::interrupted);
    EXPECT_EQ(ended, 0u);
}

// Children run in process groups of their own, so a signal to the runner's group reaches the
// runner alone, which ends them.
TEST_F(PoolTest, ChildrenHaveTheirOwnProcessGroup) {
    std::vector<int> codes;
    run_pool(
        1, 1,
        [&](size_t) {
            Job job;
            job.dir = dir / "pgrp";
            job.body = [] { return getpgrp() == getpid() ? 0 : 1; };
            return job;
        },
        [&](size_t, const ChildStatus& s) {
            codes.push_back(s.exit_code);
            return true;
        });
    EXPECT_EQ(codes, std::vector<int>{0});
}
