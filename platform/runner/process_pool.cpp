// The process pool: fork (and exec, for a program) or hand a job to a worker, wait with
// SIGCHLD, SIGINT and SIGTERM blocked (read through a signalfd, polled with the workers'
// channels) so that none is lost between two looks, kill a child at its wall-clock limit.
#include "platform/runner/process_pool.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
#include <stdexcept>

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

// A `body` job's exit code. Exceptions are a model error (3), as they end `ringsim run`.
int call_body(const std::function<int()>& body) {
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
    return code;
}

// The forked child of a `body` job: its result is the exit code. _exit, not exit: the
// parent's atexit handlers and static destructors are not the child's to run (SystemC's would
// tear down a kernel that the body may have left mid-simulation).
[[noreturn]] void run_body(const std::function<int()>& body) {
    _exit(call_body(body));
}

// A file in memory for the stderr of jobs without a directory, appended to (a worker's is
// emptied before each of its jobs); -1 with `error` set.
int memory_stderr(std::string& error) {
    const int fd = memfd_create("ringsim-job-stderr", MFD_CLOEXEC);
    if (fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) == 0) return fd;
    error = std::string("not started: cannot make a file in memory for stderr: ") +
            std::strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
}

// Creates a job's directory and an empty stderr.txt in it; returns that file open for writing,
// or -1 with `error` set. A job without a directory gets a file in memory.
int open_job_stderr(const Job& job, std::string& error) {
    if (job.dir.empty()) return memory_stderr(error);
    std::error_code ec;
    fs::create_directories(job.dir, ec);
    if (ec) {
        error = "not started: cannot create " + job.dir.string() + ": " + ec.message();
        return -1;
    }
    const std::string err_path = (job.dir / "stderr.txt").string();
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err_fd < 0) error = "not started: cannot create " + err_path + ": " + std::strerror(errno);
    return err_fd;
}

// The end of a file in memory that took a job's stderr: its last kSaidKept bytes, which is
// what a report quotes of a failed run (its error comes last), however much a runaway job
// wrote before it.
std::string read_memory_stderr(int fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size <= 0) return "";
    const off_t from = st.st_size > off_t(kSaidKept) ? st.st_size - off_t(kSaidKept) : 0;
    std::string text(size_t(st.st_size - from), '\0');
    size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = pread(fd, text.data() + got, text.size() - got, from + off_t(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += size_t(n);
    }
    text.resize(got);
    return text;
}

// A child of the pool: a one-job child, or a worker, busy with a job or idle.
struct Child {
    bool busy = false; // runs job `index`
    size_t index = 0;
    Clock::time_point start;
    Clock::time_point deadline; // == start when there is no limit
    double timeout_s = 0;
    bool killed = false; // SIGKILLed at its deadline
    bool worker = false;
    int channel = -1;   // a worker's, until it is closed
    std::string answer; // a worker's answer to its job, until finish() takes it
    int said_fd = -1;   // the file in memory of a job's stderr: a worker's, or a one-job child's
    bool said_in_memory = false; // the busy job has no directory: its stderr is in said_fd
};
using Children = std::map<pid_t, Child>;

// More than any job's answer (a run's statistics are kilobytes): a larger length is a garbled
// channel, not something to allocate.
constexpr uint64_t kMaxAnswer = uint64_t(1) << 30;

void close_channel(Child& c) {
    if (c.channel >= 0) close(c.channel);
    c.channel = -1;
}

// Closes what the runner holds of a child that is gone.
void close_child(Child& c) {
    close_channel(c);
    if (c.said_fd >= 0) close(c.said_fd);
    c.said_fd = -1;
}

// What every child does first, before it runs anything of its own.
void become_child(pid_t parent, const sigset_t& child_mask, int devnull, const Children& others) {
    // A child outliving a killed runner would only burn CPU: its result has no reader.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127); // the runner died before prctl took effect
    // Its own process group: a Ctrl-C at the terminal or a kill of the runner's group reaches
    // the runner, which then ends its children itself, and never a child first, which would
    // look like a run that died.
    setpgid(0, 0);
    pthread_sigmask(SIG_SETMASK, &child_mask, nullptr);
    dup2(devnull, STDOUT_FILENO);
    // What the runner holds of its other children is not this one's: a worker keeping another
    // worker's channel open would hide the runner's end of it from that worker, and a dead
    // worker's file in memory would stay allocated for as long as this child lives.
    for (const auto& [pid, c] : others) {
        if (c.channel >= 0) close(c.channel);
        if (c.said_fd >= 0) close(c.said_fd);
    }
}

// fork(), after flushing what this process buffered (the child must not write it a second
// time); the child has become_child()'s setup when it returns 0.
pid_t fork_child(const sigset_t& child_mask, int devnull, const Children& others) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) become_child(parent, child_mask, devnull, others);
    return pid;
}

// Starts one job in a child of its own; returns its pid, or -1 with `error` set. A job without
// a directory leaves its file in memory open in `said_fd`, for the runner to read at its end.
pid_t spawn(const Job& job, int devnull, const sigset_t& child_mask, const Children& others,
            int& said_fd, std::string& error) {
    const int err_fd = open_job_stderr(job, error);
    if (err_fd < 0) return -1;
    CArgv argv(job.body ? std::vector<std::string>{"-"} : job.argv);
    const std::string exec_failed =
        "ringsim: cannot execute " + (job.argv.empty() ? std::string("?") : job.argv[0]) + "\n";
    const pid_t pid = fork_child(child_mask, devnull, others);
    if (pid == 0) {
        dup2(err_fd, STDERR_FILENO);
        if (job.body) run_body(job.body);
        execv(argv.pointers[0], argv.pointers.data());
        ssize_t ignored = write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
        (void)ignored;
        _exit(127);
    }
    if (pid < 0) error = std::string("not started: fork failed: ") + std::strerror(errno);
    if (pid > 0 && job.dir.empty())
        said_fd = err_fd;
    else
        close(err_fd);
    return pid;
}

// A worker's channel to the runner, and what its job handed back with answer().
int g_answer_channel = -1;
std::string g_answer;

// Sends all of `size` bytes at `data`; false when the runner is gone.
bool send_all(int channel, const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = send(channel, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

// Receives all of `size` bytes into `data`, waiting for them; false at the channel's end.
bool recv_all(int channel, void* data, size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t n = recv(channel, p, size, MSG_WAITALL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

// A worker's loop: take a job index from the runner, run make_job(i)'s body with stderr in the
// job's stderr.txt (or, for a job without a directory, in the worker's file in memory), and when it
// returned 0 answer with the length of what it handed back with answer() (8 bytes) and that text.
// Any other end is the worker's own exit, with the job's code, which the runner reaps as it reaps a
// one-job child.
[[noreturn]] void serve(int channel, const std::function<Job(size_t)>& make_job, int devnull,
                        int said_fd) {
    // Memory a run freed stays with the worker for the next run instead of going back to the
    // kernel and being faulted in again: the worker's footprint is its largest run's.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 28);
    g_answer_channel = channel;
    for (;;) {
        uint64_t index = 0;
        if (recv(channel, &index, sizeof index, MSG_WAITALL) != ssize_t(sizeof index))
            _exit(0); // the runner has no more jobs (or is gone)
        const Job job = make_job(size_t(index));
        if (job.dir.empty()) { // the worker's file in memory, emptied of the job before
            if (said_fd < 0 || ftruncate(said_fd, 0) != 0) _exit(127);
            dup2(said_fd, STDERR_FILENO);
        } else {
            const int err_fd =
                open((job.dir / "stderr.txt").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
            if (err_fd < 0) _exit(127);
            dup2(err_fd, STDERR_FILENO);
            close(err_fd);
        }
        g_answer.clear();
        const int code = call_body(job.body);
        dup2(devnull, STDERR_FILENO);
        if (code != 0) _exit(code);
        const uint64_t size = g_answer.size();
        if (!send_all(channel, &size, sizeof size) || !send_all(channel, g_answer.data(), size))
            _exit(0);
    }
}

// Forks a worker; returns its pid and sets the runner's end of its channel in `c`, and, when
// `with_memory` (its first job has no directory), its file in memory for the stderr of such
// jobs; or -1 with `error` set. A pool whose jobs all have a directory never needs memfd.
pid_t spawn_worker(const std::function<Job(size_t)>& make_job, int devnull,
                   const sigset_t& child_mask, const Children& others, bool with_memory, Child& c,
                   std::string& error) {
    const int memory = with_memory ? memory_stderr(error) : -1;
    if (with_memory && memory < 0) return -1;
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        error = std::string("not started: socketpair failed: ") + std::strerror(errno);
        if (memory >= 0) close(memory);
        return -1;
    }
    const pid_t pid = fork_child(child_mask, devnull, others);
    if (pid == 0) {
        close(ends[0]);
        serve(ends[1], make_job, devnull, memory);
    }
    close(ends[1]);
    if (pid < 0) {
        error = std::string("not started: fork failed: ") + std::strerror(errno);
        close(ends[0]);
        if (memory >= 0) close(memory);
        return -1;
    }
    c.channel = ends[0];
    c.said_fd = memory;
    return pid;
}

ChildStatus status_of(int wait_status) {
    ChildStatus s;
    if (WIFEXITED(wait_status)) s.exit_code = WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) s.signal = WTERMSIG(wait_status);
    return s;
}

// A busy worker's answer, without waiting: 1 it finished its job with exit 0 (what the job
// handed back is now in c.answer); 0 not yet; -1 it will not answer (its channel closed: it
// exited or died, and its reap is on the way).
int take_answer(Child& c) {
    if (c.channel < 0) return -1;
    char first = 0;
    const ssize_t n = recv(c.channel, &first, 1, MSG_DONTWAIT | MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    // The worker has begun its answer and sends the rest at once: take it whole. A worker that
    // dies halfway ends the channel, and the wait with it.
    uint64_t size = 0;
    if (n == 1 && recv_all(c.channel, &size, sizeof size) && size <= kMaxAnswer) {
        c.answer.resize(size);
        if (recv_all(c.channel, c.answer.data(), size)) return 1;
    }
    close_channel(c);
    return -1;
}

// What ended a wait.
struct Event {
    enum Kind { reaped, answered, deadline, interrupted, lost } kind = lost;
    pid_t pid = 0;
    int wait_status = 0; // when reaped
};

// Waits for children to end, workers to answer, SIGINT or SIGTERM, or a deadline. While alive
// it blocks those signals and SIGCHLD, so none is lost between two looks: they are read from
// a signalfd, polled with the workers' channels. Then an interrupted pool can end its children
// and its caller remove their files.
class ChildWaiter {
public:
    ChildWaiter() {
        sigemptyset(&m_signals);
        for (int sig : {SIGCHLD, SIGINT, SIGTERM})
            sigaddset(&m_signals, sig);
        pthread_sigmask(SIG_BLOCK, &m_signals, &m_old_mask);
        m_fd = signalfd(-1, &m_signals, SFD_NONBLOCK | SFD_CLOEXEC);
    }
    ~ChildWaiter() {
        // An interruption still pending would kill us once unblocked: take it now.
        take_pending_interrupt();
        const timespec now = {0, 0};
        while (sigtimedwait(&m_signals, nullptr, &now) > 0) {
        }
        if (m_fd >= 0) close(m_fd);
        pthread_sigmask(SIG_SETMASK, &m_old_mask, nullptr);
    }
    ChildWaiter(const ChildWaiter&) = delete;
    ChildWaiter& operator=(const ChildWaiter&) = delete;

    // The mask children must get back before exec (the mask survives exec).
    const sigset_t& old_mask() const { return m_old_mask; }
    bool interrupted() const { return m_interrupted; }

    // The next event. An interruption already pending wins over a child that ended, which may
    // have ended of the same signal; a worker's answer wins over its end, which may follow it.
    Event wait(Children& children, const Clock::time_point* deadline) {
        for (;;) {
            if (take_pending_interrupt()) return {Event::interrupted};
            for (auto& [pid, c] : children)
                if (c.busy && c.worker && take_answer(c) == 1) return {Event::answered, pid};
            Event e{Event::reaped};
            e.pid = waitpid(-1, &e.wait_status, WNOHANG);
            if (e.pid < 0) return {Event::lost};
            if (e.pid > 0) return e;
            int timeout_ms = -1;
            if (deadline) {
                const auto left = *deadline - Clock::now();
                if (left <= Clock::duration::zero()) return {Event::deadline};
                timeout_ms = int(std::chrono::ceil<std::chrono::milliseconds>(left).count());
            }
            std::vector<pollfd> fds = {{m_fd, POLLIN, 0}};
            for (const auto& [pid, c] : children)
                if (c.busy && c.channel >= 0) fds.push_back({c.channel, POLLIN, 0});
            poll(fds.data(), fds.size(), timeout_ms);
        }
    }

    // A child killed by a signal the pool did not send it: whoever sent it meant the whole
    // study (scancel signals every process of a job), so it counts as an interruption.
    void interrupted_by(int sig) {
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) m_interrupted = true;
    }

private:
    // Reads every pending signal (SIGCHLD only wakes the wait up).
    bool take_pending_interrupt() {
        signalfd_siginfo info;
        while (m_fd >= 0 && read(m_fd, &info, sizeof info) == ssize_t(sizeof info))
            if (info.ssi_signo == SIGINT || info.ssi_signo == SIGTERM) m_interrupted = true;
        return m_interrupted;
    }
    sigset_t m_signals, m_old_mask;
    int m_fd = -1;
    bool m_interrupted = false;
};

// Terminates the busy children (their results are no longer wanted), lets the idle workers
// go, and reaps them all.
void end_children(Children& children) {
    for (auto& [pid, c] : children) {
        if (c.busy) kill(pid, SIGTERM);
        close_channel(c); // an idle worker exits when its channel closes
    }
    for (auto& [pid, c] : children) {
        int wait_status = 0;
        while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        close_child(c);
    }
    children.clear();
}

// The earliest deadline of a busy child not yet killed; nullptr when none has one.
const Clock::time_point* next_deadline(const Children& children) {
    const Clock::time_point* first = nullptr;
    for (const auto& [pid, c] : children)
        if (c.busy && c.timeout_s > 0 && !c.killed && (!first || c.deadline < *first))
            first = &c.deadline;
    return first;
}

// Hands job i to an idle worker, forking one when none is idle; returns the worker's pid, or
// -1 with `error` set.
pid_t hand_to_worker(size_t i, const Job& job, Children& children,
                     const std::function<Job(size_t)>& make_job, int devnull,
                     const sigset_t& child_mask, std::string& error) {
    if (!job.dir.empty()) { // else the worker's file in memory takes its stderr
        const int err_fd = open_job_stderr(job, error);
        if (err_fd < 0) return -1;
        close(err_fd);
    }
    const uint64_t index = i;
    for (auto& [pid, c] : children)
        if (c.worker && !c.busy && c.channel >= 0) {
            if (job.dir.empty() && c.said_fd < 0) { // it has nowhere to put the job's stderr
                close_channel(c);                   // so it exits; a new worker takes the job
                continue;
            }
            if (send(c.channel, &index, sizeof index, MSG_NOSIGNAL) == ssize_t(sizeof index))
                return pid;
            close_channel(c); // it died idle; its reap is on the way
        }
    Child c;
    c.worker = true;
    const pid_t pid =
        spawn_worker(make_job, devnull, child_mask, children, job.dir.empty(), c, error);
    if (pid < 0) return -1;
    children.emplace(pid, c);
    if (send(c.channel, &index, sizeof index, MSG_NOSIGNAL) == ssize_t(sizeof index)) return pid;
    error = std::string("not started: a new worker took no job: ") + std::strerror(errno);
    close_channel(children[pid]); // it exits; its reap closes the rest
    return -1;
}

std::string seconds_text(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

} // namespace

void answer(std::string text) {
    if (g_answer_channel < 0)
        throw std::logic_error("answer() outside a worker: only a reusable job can answer");
    g_answer = std::move(text);
}

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
    Children children;
    size_t next = 0, busy = 0;
    bool go_on = true;
    const auto done = [&](size_t i, const ChildStatus& s) { go_on = on_done(i, s) && go_on; };
    const auto finish = [&](Child& c, ChildStatus s) {
        c.busy = false;
        --busy;
        s.wall_s = std::chrono::duration<double>(Clock::now() - c.start).count();
        if (c.said_in_memory && c.said_fd >= 0) s.said = read_memory_stderr(c.said_fd);
        done(c.index, s);
    };
    try {
        while (go_on && !waiter.interrupted() && (next < count || busy > 0)) {
            while (go_on && next < count && busy < std::max(parallel, 1u)) {
                const size_t i = next++;
                const Job job = make_job(i);
                ChildStatus failed;
                const auto start = Clock::now();
                int said_fd = -1;
                const pid_t pid =
                    job.body && job.reusable
                        ? hand_to_worker(i, job, children, make_job, devnull, waiter.old_mask(),
                                         failed.failure)
                        : spawn(job, devnull, waiter.old_mask(), children, said_fd, failed.failure);
                if (pid < 0) {
                    done(i, failed);
                    continue;
                }
                Child& c = children[pid];
                if (said_fd >= 0) c.said_fd = said_fd; // a one-job child's
                c.said_in_memory = job.dir.empty();
                c.busy = true;
                c.index = i;
                c.start = c.deadline = start;
                c.timeout_s = job.timeout_s;
                c.killed = false;
                if (job.timeout_s > 0)
                    c.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(job.timeout_s));
                ++busy;
            }
            if (busy == 0) continue;
            const Event e = waiter.wait(children, next_deadline(children));
            if (e.kind == Event::interrupted) break;
            if (e.kind == Event::deadline) { // kill whoever is over it, reap it as usual
                const auto now = Clock::now();
                for (auto& [pid, c] : children)
                    if (c.busy && c.timeout_s > 0 && !c.killed && c.deadline <= now) {
                        kill(pid, SIGKILL);
                        c.killed = true;
                    }
                continue;
            }
            if (e.kind == Event::lost) { // someone else reaped our children
                ChildStatus lost;
                lost.failure = "exit status lost (reaped elsewhere)";
                for (auto& [pid, c] : children)
                    if (c.busy) done(c.index, lost);
                for (auto& [pid, c] : children)
                    close_child(c);
                children.clear();
                busy = 0;
                continue;
            }
            const auto it = children.find(e.pid);
            if (it == children.end()) continue; // not one of ours
            Child& c = it->second;
            if (e.kind == Event::answered || (c.busy && c.worker && take_answer(c) == 1)) {
                ChildStatus ok;
                ok.exit_code = 0;
                ok.answer = std::move(c.answer);
                c.answer.clear();
                finish(c, ok);
                if (e.kind == Event::answered) continue;
            }
            // A child ended: a one-job child, a worker with its job's code, or an idle worker.
            Child ended = std::move(c);
            children.erase(it);
            struct Closer { // whatever on_done does, even throw
                Child& c;
                ~Closer() { close_child(c); }
            } closer{ended};
            close_channel(ended);
            ChildStatus s = status_of(e.wait_status);
            if (s.signal && !ended.killed) waiter.interrupted_by(s.signal);
            if (ended.busy && !waiter.interrupted()) { // else no result
                s.timed_out = ended.killed;
                s.timeout_s = ended.timeout_s;
                finish(ended, s);
            }
        }
    } catch (...) {
        end_children(children);
        throw;
    }
    end_children(children);
    if (devnull >= 0) close(devnull);
    return waiter.interrupted() ? PoolEnd::interrupted
           : go_on              ? PoolEnd::finished
                                : PoolEnd::stopped;
}

} // namespace ringsim::platform::runner
