// The process runner of explore, matrix and sweep (platform/runner/process_pool.h): programs
// and forked functions as children, their stderr, exit codes and signals, parallelism,
// stopping, interruption, and the wall-clock limit; reusable functions in workers.
#include "platform/runner/process_pool.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

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

namespace {

// A reusable job that writes "job I" on stderr, sleeps `sleep_s` and ends as `end` says.
Job reusable_job(const fs::path& dir, size_t i, int end = 0, double sleep_s = 0) {
    Job job;
    job.dir = dir / std::to_string(i);
    job.reusable = true;
    job.body = [i, end, sleep_s]() -> int {
        std::cerr << "job " << i << "\n";
        if (sleep_s > 0) usleep(useconds_t(sleep_s * 1e6));
        if (end == -1) throw std::runtime_error("boom");
        if (end == -2) raise(SIGABRT);
        return end;
    };
    return job;
}

// reusable_job, which also writes its process id into pid.txt of its directory.
Job pid_job(const fs::path& dir, size_t i, int end = 0) {
    Job job = reusable_job(dir, i, end);
    const fs::path file = job.dir / "pid.txt";
    const auto inner = job.body;
    job.body = [file, inner] {
        std::ofstream(file) << getpid();
        return inner();
    };
    return job;
}

// How many files this process has open: a pool leaves as many as it found.
size_t open_fds() {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
        (void)e;
        ++n;
    }
    return n;
}

pid_t pid_of(const fs::path& job_dir) {
    pid_t pid = 0;
    std::ifstream(job_dir / "pid.txt") >> pid;
    return pid;
}

} // namespace

// Reusable jobs run one after another in at most `parallel` workers, each job's stderr in its
// own stderr.txt and nothing of the job before it.
TEST_F(PoolTest, ReusableJobsShareWorkersAndKeepTheirOwnStderr) {
    const size_t n = 8;
    std::vector<ChildStatus> status(n);
    const PoolEnd end = run_pool(
        n, 2, [&](size_t i) { return pid_job(dir, i); },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    std::set<pid_t> pids;
    for (size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(status[i].ok()) << i << ": " << status[i].describe();
        EXPECT_EQ(read_text(dir / std::to_string(i) / "stderr.txt"),
                  "job " + std::to_string(i) + "\n");
        const pid_t pid = pid_of(dir / std::to_string(i));
        EXPECT_GT(pid, 0);
        EXPECT_NE(pid, getpid()); // a child, never the runner
        pids.insert(pid);
    }
    EXPECT_GE(pids.size(), 1u);
    EXPECT_LE(pids.size(), 2u);
}

// A job that returns nonzero, throws or dies ends its worker with that result; the jobs after
// it run in a new worker.
TEST_F(PoolTest, AFailedReusableJobEndsItsWorkerAndTheNextRunInANewOne) {
    const std::vector<int> ends = {0, 4, 0, -1, 0, -2, 0, 0};
    std::vector<ChildStatus> status(ends.size());
    const PoolEnd end = run_pool(
        ends.size(), 1, [&](size_t i) { return pid_job(dir, i, ends[i]); },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    EXPECT_TRUE(status[0].ok());
    EXPECT_EQ(status[1].exit_code, 4);
    EXPECT_EQ(status[3].exit_code, 3);
    EXPECT_EQ(read_text(dir / "3" / "stderr.txt"), "job 3\nringsim: model error: boom\n");
    EXPECT_EQ(status[5].signal, SIGABRT);
    for (size_t i : {2, 4, 6, 7})
        EXPECT_TRUE(status[i].ok()) << i << ": " << status[i].describe();
    const auto pid = [&](size_t i) { return pid_of(dir / std::to_string(i)); };
    EXPECT_EQ(pid(0), pid(1)); // 1 ran in 0's worker, and ended it
    EXPECT_NE(pid(2), pid(1));
    EXPECT_EQ(pid(2), pid(3));
    EXPECT_NE(pid(4), pid(3));
    EXPECT_EQ(pid(4), pid(5));
    EXPECT_NE(pid(6), pid(5));
    EXPECT_EQ(pid(6), pid(7));
}

// A worker busy past its job's limit is killed and the job reported as timed out; the next
// job runs in a new worker, without that limit.
TEST_F(PoolTest, ABusyWorkerPastItsLimitIsKilledAndSaysSo) {
    std::vector<ChildStatus> status(3);
    run_pool(
        3, 1,
        [&](size_t i) {
            Job job = reusable_job(dir, i, 0, i == 1 ? 30 : 0);
            job.timeout_s = i == 1 ? 0.2 : 0;
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_TRUE(status[0].ok());
    EXPECT_TRUE(status[1].timed_out);
    EXPECT_EQ(status[1].describe(), "timed out after 0.2 s (killed)");
    EXPECT_TRUE(status[2].ok()) << status[2].describe();
}

// An interrupted pool ends its busy and its idle workers and reaps them all.
TEST_F(PoolTest, AnInterruptedPoolEndsItsWorkers) {
    const size_t fds = open_fds();
    size_t ended = 0;
    const pid_t runner = getpid();
    const PoolEnd end = run_pool(
        6, 2,
        [&](size_t i) {
            Job job = reusable_job(dir, i, 0, i == 0 ? 0 : 30);
            if (i == 0) { // ends at once, leaving its worker idle, once the next job started
                job.body = [runner] {
                    usleep(200000);
                    kill(runner, SIGINT);
                    return 0;
                };
            }
            return job;
        },
        [&](size_t, const ChildStatus&) {
            ++ended;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::interrupted);
    EXPECT_LE(ended, 1u); // job 0 may have answered before the interruption was seen
    int wait_status = 0;
    EXPECT_EQ(waitpid(-1, &wait_status, WNOHANG), -1); // no child left, not even an idle one
    EXPECT_EQ(errno, ECHILD);
    EXPECT_EQ(open_fds(), fds);
}

// A reusable job hands text back with its end (answer()): each job's own, whole however long,
// none from a job that answered and then failed, and nothing from a job that did not answer.
// Outside a worker, answer() is a model error, not a text silently lost.
TEST_F(PoolTest, AWorkersJobAnswersWithItsEnd) {
    const size_t n = 6;
    const auto text_of = [](size_t i) { // job 2's is larger than a socket's buffer
        return i == 3 ? std::string() : std::string(i == 2 ? 3 << 20 : 10, char('a' + i));
    };
    std::vector<ChildStatus> status(n);
    const PoolEnd end = run_pool(
        n, 2,
        [&](size_t i) {
            Job job = reusable_job(dir, i);
            job.body = [i, text = text_of(i)] {
                if (i != 3) answer(text);
                return i == 4 ? 7 : 0;
            };
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    for (size_t i = 0; i < n; ++i) {
        if (i == 4) continue;
        EXPECT_TRUE(status[i].ok()) << i << ": " << status[i].describe();
        EXPECT_EQ(status[i].answer.size(), text_of(i).size()) << i;
        EXPECT_TRUE(status[i].answer == text_of(i)) << i;
    }
    EXPECT_EQ(status[4].exit_code, 7);
    EXPECT_EQ(status[4].answer, "");

    ChildStatus alone;
    run_pool(
        1, 1,
        [&](size_t) {
            Job job;
            job.dir = dir / "alone";
            job.body = [] {
                answer("lost?");
                return 0;
            };
            return job;
        },
        [&](size_t, const ChildStatus& s) {
            alone = s;
            return true;
        });
    EXPECT_EQ(alone.exit_code, 3);
    EXPECT_NE(read_text(dir / "alone" / "stderr.txt").find("answer() outside a worker"),
              std::string::npos);
}

// A job without a directory makes no file: what it writes on stderr comes back as
// ChildStatus::said, for a worker's job (each its own, none of the job before it, whether it
// succeeded, failed or was killed at its limit), a one-job function and a program.
TEST_F(PoolTest, AJobWithoutADirectoryHandsBackItsStderr) {
    const size_t fds = open_fds();
    const std::vector<int> ends = {0, 0, 4, 0, -1, 0};
    std::vector<ChildStatus> status(ends.size() + 3);
    const PoolEnd end = run_pool(
        status.size(), 2,
        [&](size_t i) {
            Job job;
            if (i < ends.size()) {
                job = reusable_job(dir, i, ends[i]);
            } else if (i == ends.size()) { // a one-job function
                job.body = [] {
                    std::cerr << "alone\n";
                    return 5;
                };
            } else if (i == ends.size() + 1) { // a program
                job.argv = {"/bin/sh", "-c", "echo program >&2; exit 6"};
            } else { // a worker's job past its limit
                job = reusable_job(dir, i, 0, 30);
                job.timeout_s = 0.2;
            }
            job.dir.clear();
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_EQ(end, PoolEnd::finished);
    for (size_t i = 0; i < ends.size(); ++i)
        if (ends[i] == 0) {
            EXPECT_TRUE(status[i].ok()) << i << ": " << status[i].describe();
            EXPECT_EQ(status[i].said, "job " + std::to_string(i) + "\n");
        }
    EXPECT_EQ(status[2].exit_code, 4);
    EXPECT_EQ(status[2].said, "job 2\n");
    EXPECT_EQ(status[4].exit_code, 3);
    EXPECT_EQ(status[4].said, "job 4\nringsim: model error: boom\n");
    EXPECT_EQ(status[6].exit_code, 5);
    EXPECT_EQ(status[6].said, "alone\n");
    EXPECT_EQ(status[7].exit_code, 6);
    EXPECT_EQ(status[7].said, "program\n");
    EXPECT_TRUE(status[8].timed_out);
    EXPECT_EQ(status[8].said, "job 8\n");
    EXPECT_TRUE(fs::is_empty(dir)); // no file anywhere
    EXPECT_EQ(open_fds(), fds);
}

// Of a job that floods stderr, `said` keeps the end, where a run's error is; jobs with and
// without a directory mix in one pool (a worker made for the first kind makes way for a new
// one with a file in memory).
TEST_F(PoolTest, SaidKeepsTheEndOfAFloodAndJobsWithAndWithoutADirectoryMix) {
    const size_t fds = open_fds();
    std::vector<ChildStatus> status(4);
    run_pool(
        status.size(), 1,
        [&](size_t i) {
            Job job = reusable_job(dir, i);
            if (i == 2) {
                job.body = [] {
                    std::cerr << std::string(3 * kSaidKept, 'x') << "the end\n";
                    return 9;
                };
            }
            if (i >= 2) job.dir.clear();
            return job;
        },
        [&](size_t i, const ChildStatus& s) {
            status[i] = s;
            return true;
        });
    EXPECT_TRUE(status[0].ok() && status[1].ok() && status[3].ok());
    EXPECT_EQ(read_text(dir / "1" / "stderr.txt"), "job 1\n");
    EXPECT_EQ(status[1].said, ""); // it has a directory
    EXPECT_EQ(status[2].exit_code, 9);
    ASSERT_EQ(status[2].said.size(), kSaidKept);
    EXPECT_EQ(status[2].said.substr(kSaidKept - 9), "xthe end\n");
    EXPECT_EQ(status[3].said, "job 3\n");
    EXPECT_EQ(open_fds(), fds);
}
