// The process pool: fork (and exec, for a program), wait with SIGCHLD, SIGINT and SIGTERM
// blocked so that none is lost between two looks, kill a child at its wall-clock limit.
#include "platform/runner/process_pool.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace ringsim::platform::runner {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A child's argv as execv wants it; built before fork, since the child may only make
// async-signal-safe calls until exec.
struct CArgv {
    explicit CArgv(const std::vector<std::string>& args) : strings(args) {
        for (auto& s : strings)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
    }
    std::vector<std::string> strings;
    std::vector<char*> pointers;
};

// The forked child of a `body` job: its result is the exit code. Exceptions end it with 3,
// as a model error ends `ringsim run`. _exit, not exit: the parent's atexit handlers and
// static destructors are not the child's to run (SystemC's would tear down a kernel that the
// body may have left mid-simulation).
[[noreturn]] void run_body(const std::function<int()>& body) {
    int code = 3;
    try {
        code = body();
    } catch (const std::exception& e) {
        std::cerr << "ringsim: model error: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "ringsim: model error: unknown exception\n";
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(code);
}

// Starts one job; returns its pid, or -1 with `error` set.
pid_t spawn(const Job& job, int devnull, const sigset_t& child_mask, std::string& error) {
    std::error_code ec;
    fs::create_directories(job.dir, ec);
    if (ec) {
        error = "not started: cannot create " + job.dir.string() + ": " + ec.message();
        return -1;
    }
    const std::string err_path = (job.dir / "stderr.txt").string();
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err_fd < 0) {
        error = "not started: cannot create " + err_path + ": " + std::strerror(errno);
        return -1;
    }
    CArgv argv(job.body ? std::vector<std::string>{"-"} : job.argv);
    const std::string exec_failed =
        "ringsim: cannot execute " + (job.argv.empty() ? std::string("?") : job.argv[0]) + "\n";
    // What the parent buffered must not be written a second time by the child.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        // A child outliving a killed runner would only burn CPU: its result has no reader.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127); // the runner died before prctl took effect
        // Its own process group: a Ctrl-C at the terminal or a kill of the runner's group
        // reaches the runner, which then ends its children itself, and never a child first,
        // which would look like a run that died.
        setpgid(0, 0);
        pthread_sigmask(SIG_SETMASK, &child_mask, nullptr);
        dup2(err_fd, STDERR_FILENO);
        dup2(devnull, STDOUT_FILENO);
        if (job.body) run_body(job.body);
        execv(argv.pointers[0], argv.pointers.data());
        ssize_t ignored = write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
        (void)ignored;
        _exit(127);
    }
    if (pid < 0) error = std::string("not started: fork failed: ") + std::strerror(errno);
    close(err_fd);
    return pid;
}

ChildStatus status_of(int wait_status) {
    ChildStatus s;
    if (WIFEXITED(wait_status)) s.exit_code = WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) s.signal = WTERMSIG(wait_status);
    return s;
}

// Waits for children to end, for SIGINT or SIGTERM, or for a deadline. While alive it blocks
// those signals and SIGCHLD, so none is lost between two looks: a pending one is taken by
// sigtimedwait. Then an interrupted pool can end its children and its caller remove their
// files.
class ChildWaiter {
public:
    ChildWaiter() {
        sigemptyset(&m_signals);
        for (int sig : {SIGCHLD, SIGINT, SIGTERM})
            sigaddset(&m_signals, sig);
        pthread_sigmask(SIG_BLOCK, &m_signals, &m_old_mask);
    }
    ~ChildWaiter() {
        // An interruption still pending would kill us once unblocked: take it now.
        const timespec now = {0, 0};
        while (sigtimedwait(&m_signals, nullptr, &now) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &m_old_mask, nullptr);
    }
    ChildWaiter(const ChildWaiter&) = delete;
    ChildWaiter& operator=(const ChildWaiter&) = delete;

    // The mask children must get back before exec (the mask survives exec).
    const sigset_t& old_mask() const { return m_old_mask; }
    bool interrupted() const { return m_interrupted; }

    // The pid of a child that ended, with its status; 0 when `deadline` passed first; -1 when
    // interrupted or none is left. An interruption already pending wins over a child that
    // ended, which may have ended of the same signal.
    pid_t wait(int& wait_status, const Clock::time_point* deadline) {
        for (;;) {
            if (take_pending_interrupt()) return -1;
            const pid_t pid = waitpid(-1, &wait_status, WNOHANG);
            if (pid != 0) return pid;
            int sig = 0;
            if (deadline) {
                const auto left = *deadline - Clock::now();
                if (left <= Clock::duration::zero()) return 0;
                const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
                const timespec ts = {time_t(ns / 1000000000), long(ns % 1000000000)};
                sig = sigtimedwait(&m_signals, nullptr, &ts);
            } else {
                sig = sigwaitinfo(&m_signals, nullptr);
            }
            if (sig == SIGINT || sig == SIGTERM) {
                m_interrupted = true;
                return -1;
            }
        }
    }

    // A child killed by a signal the pool did not send it: whoever sent it meant the whole
    // study (scancel signals every process of a job), so it counts as an interruption.
    void interrupted_by(int sig) {
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) m_interrupted = true;
    }

private:
    bool take_pending_interrupt() {
        sigset_t stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        const timespec now = {0, 0};
        if (sigtimedwait(&stop, nullptr, &now) > 0) m_interrupted = true;
        return m_interrupted;
    }
    sigset_t m_signals, m_old_mask;
    bool m_interrupted = false;
};

struct Running {
    size_t index = 0;
    Clock::time_point start;
    Clock::time_point deadline; // == start when there is no limit
    double timeout_s = 0;
    bool killed = false; // SIGKILLed at its deadline
};

// Terminates and reaps the children still running: their results are no longer wanted.
void end_children(const std::map<pid_t, Running>& running) {
    for (const auto& [pid, r] : running)
        kill(pid, SIGTERM);
    for (const auto& [pid, r] : running) {
        int wait_status = 0;
        while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
    }
}

// The earliest deadline of a child not yet killed; nullptr when none has one.
const Clock::time_point* next_deadline(const std::map<pid_t, Running>& running) {
    const Clock::time_point* first = nullptr;
    for (const auto& [pid, r] : running)
        if (r.timeout_s > 0 && !r.killed && (!first || r.deadline < *first)) first = &r.deadline;
    return first;
}

std::string seconds_text(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

} // namespace

std::string ChildStatus::describe() const {
    if (!failure.empty()) return failure;
    if (timed_out) return "timed out after " + seconds_text(timeout_s) + " s (killed)";
    if (signal)
        return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit " + std::to_string(exit_code);
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::optional<nlohmann::json> read_json(const fs::path& file) {
    std::ifstream in(file);
    if (!in) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

PoolEnd run_pool(size_t count, unsigned parallel, const std::function<Job(size_t)>& make_job,
                 const std::function<bool(size_t, const ChildStatus&)>& on_done) {
    // Children inherit an ignored SIGCHLD as "reap automatically": their statuses would be
    // lost. The pool waits for them itself.
    struct sigaction old_chld {
    }, dfl{};
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, &old_chld);
    struct Restore {
        struct sigaction& old;
        ~Restore() { sigaction(SIGCHLD, &old, nullptr); }
    } restore{old_chld};
    ChildWaiter waiter;
    const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    std::map<pid_t, Running> running;
    size_t next = 0;
    bool go_on = true;
    const auto done = [&](size_t i, const ChildStatus& s) { go_on = on_done(i, s) && go_on; };
    while (go_on && !waiter.interrupted() && (next < count || !running.empty())) {
        while (go_on && next < count && running.size() < std::max(parallel, 1u)) {
            const size_t i = next++;
            const Job job = make_job(i);
            ChildStatus failed;
            const auto start = Clock::now();
            const pid_t pid = spawn(job, devnull, waiter.old_mask(), failed.failure);
            if (pid > 0) {
                Running r{i, start, start, job.timeout_s, false};
                if (job.timeout_s > 0)
                    r.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(job.timeout_s));
                running.emplace(pid, r);
            } else {
                try {
                    done(i, failed);
                } catch (...) {
                    end_children(running);
                    throw;
                }
            }
        }
        if (running.empty()) continue;
        int wait_status = 0;
        const pid_t pid = waiter.wait(wait_status, next_deadline(running));
        if (pid == 0) { // a deadline passed: kill whoever is over it, reap it as usual
            const auto now = Clock::now();
            for (auto& [child, r] : running)
                if (r.timeout_s > 0 && !r.killed && r.deadline <= now) {
                    kill(child, SIGKILL);
                    r.killed = true;
                }
            continue;
        }
        if (pid < 0 && !waiter.interrupted()) { // someone else reaped our children
            ChildStatus lost;
            lost.failure = "exit status lost (reaped elsewhere)";
            for (const auto& [lost_pid, r] : running)
                done(r.index, lost);
            running.clear();
        }
        const auto it = running.find(pid);
        if (it == running.end()) continue; // not one of ours
        const Running r = it->second;
        running.erase(it);
        ChildStatus s = status_of(wait_status);
        if (s.signal && !r.killed) waiter.interrupted_by(s.signal);
        if (waiter.interrupted()) break; // not a result: the study was interrupted
        s.timed_out = r.killed;
        s.timeout_s = r.timeout_s;
        s.wall_s = std::chrono::duration<double>(Clock::now() - r.start).count();
        try {
            done(r.index, s);
        } catch (...) {
            end_children(running);
            throw;
        }
    }
    end_children(running);
    if (devnull >= 0) close(devnull);
    return waiter.interrupted() ? PoolEnd::interrupted
           : go_on              ? PoolEnd::finished
                                : PoolEnd::stopped;
}

} // namespace ringsim::platform::runner
