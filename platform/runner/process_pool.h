// The one process runner of explore, matrix and sweep: each simulation runs in a child
// process, never in the runner, because a run that crashes or hangs must not take the others
// with it. A bounded number of children run at once; each job may have a wall-clock limit,
// past which its child is killed and the job reported as timed out.
//
// A child is either a program (exec of argv, as explore's tests use a stand-in `ringsim run`)
// or a function of this very process, forked without exec: the fork server of sweep, where
// process start-up (exec, dynamic linking) would otherwise dominate a short point. A function
// marked reusable runs in a worker: a forked child that runs such jobs one after another for
// as long as each returns 0, so that a short run pays neither a fork nor the first touches
// of its memory: a fresh child's few hundred page faults, at several microseconds each in a
// virtual machine, were most of a short run's cost (docs/performance.md, "Cheap runs").
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::platform::runner {

// One child process. `dir` is created first and receives the child's stderr as
// dir/stderr.txt; with no `dir`, its stderr comes back as ChildStatus::said, through a file in
// memory (a job that leaves no file, e.g. a sweep's point, then makes no path at all). Its
// stdout is discarded.
struct Job {
    std::vector<std::string> argv; // exec'd when `body` is empty; argv[0] is the executable
    std::function<int()> body;     // else: run in the forked child, its result the exit code
    std::filesystem::path dir;     // may be empty (above)
    double timeout_s = 0;          // wall-clock limit; 0: none
    // `body` may run in a worker, after other reusable jobs: it leaves nothing behind that
    // changes the next one when it returns 0 (a job that returns anything else, throws or
    // dies ends its worker). A worker calls make_job(i) itself, in its own copy of this
    // process, so make_job must depend only on i and on what is fixed before run_pool starts.
    bool reusable = false;
};

// How much of a job's stderr ChildStatus::said keeps: its end.
constexpr size_t kSaidKept = 64 * 1024;

// Within a reusable job's body, before it returns 0: hands `text` back to the runner with the
// job's end, as ChildStatus::answer, instead of a file the job would write and the runner read
// back and remove (a sweep point's statistics). Only a worker has a channel to the runner:
// called anywhere else it throws std::logic_error, which ends the job as a model error.
void answer(std::string text);

// How a child ended.
struct ChildStatus {
    int exit_code = -1;     // when it exited
    int signal = 0;         // when a signal killed it
    bool timed_out = false; // killed (SIGKILL) at its wall-clock limit
    double timeout_s = 0;   // that limit, for describe()
    std::string failure;    // when it could not be started, or its status was lost
    double wall_s = 0;      // from its start (a fork, or its index sent to a worker) to its end
    std::string answer;     // what a worker's job handed back with answer(), when it ended ok
    std::string said;       // a job without a `dir`: the last kSaidKept bytes it wrote on stderr
    bool ok() const { return failure.empty() && !timed_out && signal == 0 && exit_code == 0; }
    // "exit 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s", or the
    // failure
    std::string describe() const;
};

enum class PoolEnd { finished, stopped, interrupted };

// Runs jobs 0..count-1 with at most `parallel` children alive at once: make_job(i) is called
// just before job i starts, on_done(i, status) as each ends (in completion order). When
// on_done returns false (stopped), or SIGINT or SIGTERM arrives while it runs (interrupted),
// no further job starts and the running ones are terminated and reaped.
PoolEnd run_pool(size_t count, unsigned parallel, const std::function<Job(size_t)>& make_job,
                 const std::function<bool(size_t, const ChildStatus&)>& on_done);

// The whole text of a file ("" when it cannot be read), e.g. a child's stderr.txt.
std::string read_text(const std::filesystem::path& file);
// A JSON file, e.g. a child's stats.json; empty when it is missing or not JSON.
std::optional<nlohmann::json> read_json(const std::filesystem::path& file);

} // namespace ringsim::platform::runner
