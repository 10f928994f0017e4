// ringsim's speed and memory, as figures (tests/bench/README.md says what each one means):
//  - the cost of one raw SystemC thread switch on this machine, measured in this run;
//  - for quickstart and the reference scenario: simulated seconds per wall second, wall
//    nanoseconds per simulated record, and that cost in raw thread switches;
//  - peak memory of the reference scenario at 1 s and 10 s of simulated time;
//  - sweeps: the speed-up of 2 jobs over 1 on 64 quickstart points, the runner's cost per
//    point (process start, elaboration, teardown, result line) on a 1 us scenario beside a
//    plain `ringsim run` of it, and `ringsim matrix` on the teaching matrix.
// Each simulation runs in its own process (ringsim run), measured with wait4's rusage.
#include <nlohmann/json.hpp>
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Two threads handing control to each other through timed waits: each wait is one switch.
struct PingPong : sc_core::sc_module {
    SC_HAS_PROCESS(PingPong);
    explicit PingPong(sc_core::sc_module_name n, long rounds) : sc_module(n), m_rounds(rounds) {
        SC_THREAD(a);
        SC_THREAD(b);
    }
    void a() {
        for (long i = 0; i < m_rounds; ++i)
            sc_core::wait(2, sc_core::SC_NS);
    }
    void b() {
        sc_core::wait(1, sc_core::SC_NS);
        for (long i = 0; i < m_rounds; ++i)
            sc_core::wait(2, sc_core::SC_NS);
    }
    long m_rounds;
};

double thread_switch_ns() {
    const long rounds = 2'000'000;
    PingPong p("pingpong", rounds);
    const auto t0 = Clock::now();
    sc_core::sc_start();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    return s * 1e9 / double(2 * rounds);
}

struct RunResult {
    bool ok = false;
    double wall_s = 0;
    double sim_s = 0;
    double records = 0;
    double max_rss_mib = 0;
    double trace_mb = 0, delivered_mb = 0; // AUX trace produced / decoded, in MB (1e6 B)
};

RunResult run(const std::string& ringsim, const std::string& scenario,
              const std::vector<std::string>& sets) {
    const std::string out = "/tmp/ringsim-bench-" + std::to_string(getpid());
    std::vector<std::string> args = {ringsim, "run", scenario, "--out", out};
    for (const auto& s : sets) {
        args.push_back("--set");
        args.push_back(s);
    }
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    RunResult r;
    std::fflush(stdout); // or the child would print our buffered lines again
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    r.max_rss_mib = double(ru.ru_maxrss) / 1024.0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return r;
    std::ifstream run_json(out + "/run.json"), stats_json(out + "/stats.json");
    const auto run = nlohmann::json::parse(run_json);
    const auto stats = nlohmann::json::parse(stats_json);
    r.sim_s = run.at("simulated_seconds").get<double>();
    r.wall_s = run.at("wall_seconds").get<double>(); // the simulation alone, no start-up
    r.records = stats.at("total").at("records").at("produced").get<double>();
    if (stats.at("total").contains("aux")) {
        const auto& bytes = stats.at("total").at("aux").at("bytes");
        r.trace_mb = bytes.at("produced").get<double>() / 1e6;
        r.delivered_mb = bytes.at("delivered").get<double>() / 1e6;
    }
    r.ok = true;
    return r;
}

// Instructions per record under callgrind (valgrind): a figure the noise of a shared
// machine does not move. Two runs, of `short_s` and `long_s` simulated seconds, so that
// start-up and the end of the run cancel: (Ir(long) - Ir(short)) / (records(long) -
// records(short)). 0 when valgrind is missing or a run fails.
double instructions_per_record(const std::string& ringsim, const std::string& scenario,
                               const std::vector<std::string>& sets, double short_s,
                               double long_s) {
    auto measure = [&](double seconds, double& records) -> double {
        const std::string out = "/tmp/ringsim-bench-cg-" + std::to_string(getpid());
        std::string cmd = "valgrind --tool=callgrind --callgrind-out-file=/dev/null " + ringsim +
                          " run " + scenario + " --out " + out +
                          " --set duration=" + std::to_string(int(seconds * 1000)) + "ms";
        for (const auto& s : sets)
            cmd += " --set " + s;
        cmd += " 2>&1 >/dev/null";
        std::fflush(stdout);
        FILE* p = popen(cmd.c_str(), "r");
        if (!p) return 0;
        char line[512];
        double ir = 0;
        while (std::fgets(line, sizeof line, p))
            if (const char* c = std::strstr(line, "Collected : ")) ir = std::atof(c + 12);
        if (pclose(p) != 0) return 0;
        std::ifstream stats_json(out + "/stats.json");
        const auto stats = nlohmann::json::parse(stats_json, nullptr, false);
        if (stats.is_discarded()) return 0;
        records = stats.at("total").at("records").at("produced").get<double>();
        return ir;
    };
    double r0 = 0, r1 = 0;
    const double i0 = measure(short_s, r0), i1 = measure(long_s, r1);
    if (!i0 || !i1 || r1 <= r0) return 0;
    return (i1 - i0) / (r1 - r0);
}

// Wall-clock runs per second of `ringsim explore SCENARIO --runs 200 --jobs J`.
double explore_runs_per_second(const std::string& ringsim, const std::string& scenario, int jobs) {
    const int runs = 200;
    const std::string cmd = ringsim + " explore " + scenario + " --runs " + std::to_string(runs) +
                            " --jobs " + std::to_string(jobs) + " > /dev/null 2>&1";
    std::fflush(stdout);
    const auto t0 = Clock::now();
    if (std::system(cmd.c_str()) != 0) return 0;
    return runs / std::chrono::duration<double>(Clock::now() - t0).count();
}

// Wall and CPU time (user + system, the process and the children it reaped) of a command.
struct Cost {
    bool ok = false;
    double wall_s = 0, cpu_s = 0;
};

Cost run_command(const std::vector<std::string>& command) {
    std::vector<std::string> args = command;
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    Cost c;
    c.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    c.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    c.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return c;
}

// A sweep spec in a scratch file: quickstart with `set`, data_pages x writer rate.
std::string write_spec(const std::string& dir, const std::string& source, const nlohmann::json& set,
                       const nlohmann::json& rates, int replicates) {
    const nlohmann::json spec = {{"scenario", source + "/scenarios/quickstart.json"},
                                 {"set", set},
                                 {"axes",
                                  {{{"path", "session.data_pages"}, {"values", {1, 2, 4, 8}}},
                                   {{"path", "workload.writers.0.rate"}, {"values", rates}}}},
                                 {"replicates", replicates}};
    const std::string file = dir + "/spec-" + std::to_string(replicates) + ".json";
    std::ofstream(file) << spec.dump();
    return file;
}

// The sweep figures of issue 9. Returns false when a command failed.
bool sweep_figures(const std::string& ringsim, const std::string& source) {
    const std::string dir = "/tmp/ringsim-bench-sweep-" + std::to_string(getpid());
    std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
    nlohmann::json rates = nlohmann::json::array();
    for (int khz = 5; khz < 21; ++khz)
        rates.push_back(std::to_string(khz) + "kHz");
    // 64 quickstart points (100 ms simulated each), with 1 and with 2 jobs.
    const std::string points = write_spec(dir, source, nlohmann::json::object(), rates, 1);
    const Cost one = run_command({ringsim, "sweep", points, "--out", dir + "/one", "--jobs", "1"});
    const Cost two = run_command({ringsim, "sweep", points, "--out", dir + "/two", "--jobs", "2"});
    // The runner's cost per point: 200 runs of a 1 us scenario, one at a time; beside it, a
    // plain `ringsim run` of the same scenario (exec, dynamic linking and all).
    const std::string tiny = write_spec(dir, source, {{"duration", "1us"}}, {"10kHz"}, 50);
    const Cost overhead =
        run_command({ringsim, "sweep", tiny, "--out", dir + "/tiny", "--jobs", "1"});
    Cost plain;
    plain.ok = true;
    const int plain_runs = 50;
    for (int i = 0; i < plain_runs; ++i) {
        const Cost c = run_command({ringsim, "run", source + "/scenarios/quickstart.json", "--set",
                                    "duration=1us", "--out", dir + "/plain"});
        plain.ok = plain.ok && c.ok;
        plain.wall_s += c.wall_s / plain_runs;
        plain.cpu_s += c.cpu_s / plain_runs;
    }
    // ringsim matrix on the teaching matrix: 16 barrier subsets x 3 models x 200 runs.
    const Cost matrix = run_command({ringsim, "matrix", source + "/scenarios/teaching/matrix.json",
                                     "--runs", "200", "--jobs", "2"});
    std::system(("rm -rf " + dir).c_str());
    if (!one.ok || !two.ok || !overhead.ok || !plain.ok || !matrix.ok) {
        std::printf("\nsweep figures: FAILED to run (%d %d %d %d %d)\n", one.ok, two.ok,
                    overhead.ok, plain.ok, matrix.ok);
        return false;
    }
    std::printf("\nsweeps (issue 9):\n");
    std::printf("  64 quickstart points: %.2f s with 1 job, %.2f s with 2 jobs: x%.2f (target "
                ">= 1.8: %s)\n",
                one.wall_s, two.wall_s, one.wall_s / two.wall_s,
                one.wall_s / two.wall_s >= 1.8 ? "met" : "MISSED");
    const double per_point = overhead.wall_s / 200;
    std::printf("  runner, per point of a 1 us scenario: %.2f ms wall, %.2f ms CPU (target "
                "<= 5 ms: %s); plain `ringsim run`: %.2f ms wall, %.2f ms CPU\n",
                per_point * 1e3, overhead.cpu_s / 200 * 1e3, per_point <= 0.005 ? "met" : "MISSED",
                plain.wall_s * 1e3, plain.cpu_s * 1e3);
    std::printf("  matrix teaching/matrix.json --runs 200 --jobs 2: %.1f s wall, %.1f s CPU "
                "(target < 30 s: %s)\n",
                matrix.wall_s, matrix.cpu_s, matrix.wall_s < 30 ? "met" : "MISSED");
    return true;
}

void report(const char* name, const RunResult& r, double switch_ns) {
    if (!r.ok) {
        std::printf("%-22s FAILED to run\n", name);
        return;
    }
    const double ns_per_record = r.wall_s * 1e9 / r.records;
    std::printf("%-22s %8.3f sim-s/wall-s  %8.1f ns/record  %6.1f switches/record  "
                "peak %6.1f MiB  (%.0f records, %.3f s wall)\n",
                name, r.sim_s / r.wall_s, ns_per_record, ns_per_record / switch_ns, r.max_rss_mib,
                r.records, r.wall_s);
}

// The AUX path's cost: wall time per simulated MB of trace produced and per MB decoded.
void report_aux(const char* name, const RunResult& r) {
    if (!r.ok || r.trace_mb <= 0) {
        std::printf("%-22s FAILED to run\n", name);
        return;
    }
    std::printf("%-22s %8.3f sim-s/wall-s  %7.2f ms/MB of trace produced  %7.2f ms/MB "
                "decoded  peak %6.1f MiB  (%.0f MB produced, %.0f MB decoded, %.3f s wall)\n",
                name, r.sim_s / r.wall_s, r.wall_s * 1e3 / r.trace_mb,
                r.delivered_mb > 0 ? r.wall_s * 1e3 / r.delivered_mb : 0.0, r.max_rss_mib,
                r.trace_mb, r.delivered_mb, r.wall_s);
}

} // namespace

int sc_main(int argc, char** argv) {
    std::string ringsim = "build/ringsim", source = ".", only;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--ringsim")
            ringsim = argv[i + 1];
        else if (flag == "--source")
            source = argv[i + 1];
        else if (flag == "--only")
            only = argv[i + 1]; // "sweeps": just the sweep figures
    }
    // The sweep specs live in /tmp and name their scenario by path: make it absolute.
    source = std::filesystem::absolute(source).string();
    if (only == "sweeps") return sweep_figures(ringsim, source) ? 0 : 1;
    const double sw = thread_switch_ns();
    std::printf("raw SystemC thread switch: %.1f ns (SystemC %s)\n\n", sw, sc_core::sc_release());

    const std::string reference = source + "/tests/bench/reference.json";
    const RunResult quick = run(ringsim, source + "/scenarios/quickstart.json", {});
    const RunResult ref1 = run(ringsim, reference, {});
    const RunResult ref10 = run(ringsim, reference, {"duration=10s"});
    const RunResult arm = run(ringsim, reference, {"memory.model=arm"});
    report("quickstart", quick, sw);
    report("reference 1s", ref1, sw);
    report("reference 10s", ref10, sw);
    report("reference 1s, arm", arm, sw);
    // Instructions per record (issue 13): 0.1 s and 0.3 s of the reference under callgrind.
    const double ipr_sc = instructions_per_record(ringsim, reference, {}, 0.1, 0.3);
    const double ipr_arm =
        instructions_per_record(ringsim, reference, {"memory.model=arm"}, 0.1, 0.3);
    if (ipr_sc && ipr_arm)
        std::printf("instructions/record (callgrind, reference): sc %.0f (target <= 2500), arm "
                    "%.0f (target <= 3000)\n",
                    ipr_sc, ipr_arm);
    else
        std::printf("instructions/record: not measured (valgrind missing or a run failed)\n");

    // The AUX path: 4 CPUs x 200 MB/s of trace for 1 s (tests/bench/aux-reference.json).
    const std::string aux_reference = source + "/tests/bench/aux-reference.json";
    const RunResult aux = run(ringsim, aux_reference, {});
    const RunResult aux_arm = run(ringsim, aux_reference, {"memory.model=arm"});
    // And a load that decodes nearly everything the ETR holds: snapshots every 5 ms.
    const RunResult aux_snap = run(ringsim, source + "/tests/bench/aux-snapshot.json", {});
    report_aux("aux reference 1s", aux);
    report_aux("aux reference 1s, arm", aux_arm);
    report_aux("aux snapshots 1s", aux_snap);

    // ringsim explore on the teaching matrix: runs per second with 1 and with 2 jobs.
    const std::string matrix = source + "/scenarios/teaching/matrix.json";
    const double one = explore_runs_per_second(ringsim, matrix, 1);
    const double two = explore_runs_per_second(ringsim, matrix, 2);
    std::printf("\nexplore teaching/matrix.json: %.1f runs/s with 1 job, %.1f with 2 jobs "
                "(x%.2f)\n",
                one, two, two / one);

    const bool sweeps_ok = sweep_figures(ringsim, source);

    if (!ref1.ok || !ref10.ok || !sweeps_ok) return 1;
    const double switches = ref1.wall_s * 1e9 / ref1.records / sw;
    const double mem_ratio = ref10.max_rss_mib / ref1.max_rss_mib;
    std::printf("\ntargets (reference scenario, one core):\n");
    std::printf("  faster than real time (>= 1 sim-s/wall-s): %.2f  %s\n", ref1.sim_s / ref1.wall_s,
                ref1.sim_s >= ref1.wall_s ? "met" : "MISSED");
    std::printf("  at most 20 raw thread switches per record:  %.1f  %s\n", switches,
                switches <= 20 ? "met" : "MISSED");
    std::printf("  peak memory 10 s / 1 s below 1.5:           %.2f  %s\n", mem_ratio,
                mem_ratio < 1.5 ? "met" : "MISSED");
    if (arm.ok) {
        const double slowdown = arm.wall_s / ref1.wall_s;
        std::printf("  arm at most 2x slower than sc:              %.2f  %s\n", slowdown,
                    slowdown <= 2 ? "met" : "MISSED");
        std::printf("  arm faster than real time:                  %.2f  %s\n",
                    arm.sim_s / arm.wall_s, arm.sim_s >= arm.wall_s ? "met" : "MISSED");
    }
    if (aux.ok)
        std::printf("  AUX reference faster than real time:        %.2f  %s\n",
                    aux.sim_s / aux.wall_s, aux.sim_s >= aux.wall_s ? "met" : "MISSED");
    std::printf("  explore: 2 jobs at least 1.8x 1 job:        %.2f  %s\n", two / one,
                two / one >= 1.8 ? "met" : "MISSED");
    return 0;
}
