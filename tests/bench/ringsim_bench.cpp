// ringsim's speed and memory as figures, each against its target (issue 13; the earlier
// sweep targets of issue 9), printed and, with --results FILE, written as JSON for
// docs/performance.md. tests/bench/README.md says what each figure means and how it is
// measured. Nothing here fails on a figure: a missed target is reported, never asserted.
//
//   ringsim_bench [--ringsim PATH] [--source DIR] [--results FILE] [--only GROUP]
//   GROUP: speed, instructions, memory, runs (default: all of them), or soak (only on its
//   own: `cmake --build build --target soak` writes tests/bench/soak-results.json)
#include "bench_figures.h"
#include "bench_process.h"

#include <nlohmann/json.hpp>
#include <systemc>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace ringsim::bench;
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

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Bench {
    std::string ringsim, source;
    std::vector<Figure> figures;
    nlohmann::json profile;
    bool failed = false;

    std::string path(const char* relative) const { return source + "/" + relative; }

    void add(Figure f) {
        const std::string unit = f.unit.empty() ? "" : " " + f.unit;
        std::printf("  %-62s %12s%s", f.label.c_str(), format_number(f.value, f.digits).c_str(),
                    unit.c_str());
        if (!f.op.empty())
            std::printf("   (target %s %s: %s)", f.op.c_str(),
                        format_number(f.bound, f.digits).c_str(), met(f) ? "met" : "MISSED");
        std::printf("\n");
        std::fflush(stdout);
        figures.push_back(std::move(f));
    }
    void fail(const std::string& what) {
        std::printf("  %s: FAILED to run\n", what.c_str());
        failed = true;
    }

    // Wall speed: medians of runs taken in turn, so that a change in the machine's load
    // touches both sides of a ratio alike.
    void speed() {
        std::printf("\nspeed (wall clock, one core; medians of 3 runs taken in turn)\n");
        const double sw = thread_switch_ns();
        const std::string reference = path("tests/bench/reference.json");
        std::vector<double> sc, ratio;
        for (int i = 0; i < 3; ++i) {
            const RunResult s = run_ringsim(ringsim, reference, {});
            const RunResult a = run_ringsim(ringsim, reference, {"memory.model=arm"});
            if (!s.ok() || !a.ok()) return fail("reference scenario");
            sc.push_back(s.speed());
            ratio.push_back(a.wall_s / s.wall_s);
        }
        add({"switch_ns", "raw SystemC thread switch (timed wait)", sw, "ns", "", 0, 1});
        // The reference makes 200,000 records per simulated second; each costs two timed
        // waits (writer and consumer) at the least.
        add({"ceiling", "reference: what two thread switches per record would allow",
             1e9 / (2 * 200000 * sw), "sim-s/wall-s", "", 0, 1});
        add({"speed.reference.sc", "reference, sc: simulated seconds per wall second", median(sc),
             "sim-s/wall-s", ">=", 15, 2});
        add({"speed.arm_over_sc", "reference, arm wall time over sc", median(ratio), "x", "<=", 1.2,
             2});
        std::vector<double> aux, snap;
        for (int i = 0; i < 3; ++i) {
            const RunResult a = run_ringsim(ringsim, path("tests/bench/aux-reference.json"), {});
            const RunResult s = run_ringsim(ringsim, path("tests/bench/aux-snapshot.json"), {});
            if (!a.ok() || !s.ok() || s.delivered_mb <= 0) return fail("AUX scenarios");
            aux.push_back(a.speed());
            snap.push_back(s.wall_s * 1e3 / s.delivered_mb);
        }
        add({"speed.aux_reference", "AUX reference, sc: simulated seconds per wall second",
             median(aux), "sim-s/wall-s", ">=", 25, 2});
        add({"speed.aux_snapshot_ms_per_mb", "AUX snapshots every 5 ms: wall time per MB decoded",
             median(snap), "ms/MB", "<=", 1.5, 2});
    }

    // Instruction counts: 0.1 s and 0.3 s of the reference under callgrind (and 20 ms and
    // 60 ms of it on 32 traced CPUs), per record produced in between; 50 ms and 150 ms of
    // the AUX snapshot scenario, per MB of trace delivered in between.
    void instructions() {
        std::printf("\ninstructions per record (callgrind: the long run minus the short one)\n");
        const std::string reference = path("tests/bench/reference.json");
        const std::vector<std::string> arm = {"memory.model=arm"};
        const Callgrind sc0 = callgrind(ringsim, reference, {}, 100);
        const Callgrind sc1 = callgrind(ringsim, reference, {}, 300);
        const Callgrind arm0 = callgrind(ringsim, reference, arm, 100);
        const Callgrind arm1 = callgrind(ringsim, reference, arm, 300);
        const std::vector<std::string> cpus32 = {"platform.cpus=33", "consumer.cpu=32"};
        const Callgrind wide0 = callgrind(ringsim, reference, cpus32, 20);
        const Callgrind wide1 = callgrind(ringsim, reference, cpus32, 60);
        const double s = per_record(sc0, sc1), a = per_record(arm0, arm1);
        const double w = per_record(wide0, wide1);
        if (!s || !a || !w) return fail("callgrind (is valgrind installed?)");
        add({"instructions_per_record.sc", "reference, sc: instructions per record (callgrind)", s,
             "instructions", "<=", 2500, 0});
        add({"instructions_per_record.arm", "reference, arm: instructions per record (callgrind)",
             a, "instructions", "<=", 3000, 0});
        add({"instructions.arm_over_sc", "reference: arm instructions over sc", a / s, "x",
             "<=", 1.2, 2});
        add({"instructions.cpus32_over_cpus4",
             "reference on 32 traced CPUs over 4: instructions per record, sc", w / s, "x",
             "<=", 1.2, 2});
        // The snapshot scenario's cost per MB decoded, as instructions: the wall figure of
        // the speed group moves with the machine's load, this one does not.
        const std::string snapshot = path("tests/bench/aux-snapshot.json");
        const double mb = per_delivered_mb(callgrind(ringsim, snapshot, {}, 50),
                                           callgrind(ringsim, snapshot, {}, 150));
        if (!mb) return fail("callgrind of the AUX snapshot scenario");
        add({"instructions.aux_snapshot_per_mb",
             "AUX snapshots every 5 ms: instructions per MB decoded (callgrind)", mb / 1e6,
             "M instructions", "", 0, 1});
        // A short sweep point's cost, the runner's and its worker's, as instructions: the
        // runs group's wall figure moves with the machine's load (and its file-system calls),
        // this one does not. 200 points minus 40: the sweep's own start-up cancels.
        const std::string dir = "/tmp/ringsim-bench-points-" + std::to_string(getpid());
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        const auto sweep = [&](int replicates) {
            const std::string spec_file =
                spec(dir, {{"duration", "1us"}}, nlohmann::json::array({"10kHz"}), replicates);
            return callgrind_command({ringsim, "sweep", spec_file, "--out",
                                      dir + "/out-" + std::to_string(replicates), "--jobs", "1"});
        };
        const double points10 = sweep(10), points50 = sweep(50);
        std::filesystem::remove_all(dir);
        if (!points10 || points50 <= points10) return fail("callgrind of a sweep");
        add({"instructions.sweep_point",
             "sweep, a 1 us point: instructions per point (callgrind, runner and worker)",
             (points50 - points10) / (4 * (50 - 10)) / 1e6, "M instructions", "", 0, 2});
        profile_of(sc0, sc1, arm0, arm1);
    }

    void profile_of(const Callgrind& sc0, const Callgrind& sc1, const Callgrind& arm0,
                    const Callgrind& arm1) {
        auto rows = [&](Grouping g, size_t keep) {
            const auto s = per_record_by(sc0, sc1, g), a = per_record_by(arm0, arm1, g);
            std::vector<std::pair<double, std::string>> order;
            for (const auto& [name, ir] : s)
                order.push_back({-std::max(ir, a.count(name) ? a.at(name) : 0.0), name});
            for (const auto& [name, ir] : a)
                if (!s.count(name)) order.push_back({-ir, name});
            std::sort(order.begin(), order.end());
            nlohmann::json out = nlohmann::json::array();
            for (const auto& [neg, name] : order) {
                if (out.size() == keep || -neg < 1) break;
                out.push_back({{"name", name},
                               {"sc", s.count(name) ? s.at(name) : 0.0},
                               {"arm", a.count(name) ? a.at(name) : 0.0}});
            }
            return out;
        };
        profile = {{"method", "self instructions of 0.3 s of the reference minus 0.1 s, per "
                              "record produced in between"},
                   {"components", rows(component_of, 100)},
                   {"functions", rows(function_of, 15)}};
        std::printf("\n  by component (sc, arm):\n");
        for (const auto& r : profile.at("components"))
            std::printf("    %-48s %8.0f %8.0f\n", r.at("name").get<std::string>().c_str(),
                        r.at("sc").get<double>(), r.at("arm").get<double>());
    }

    // Peak resident memory, from run.json (the simulator's own getrusage).
    void memory() {
        std::printf("\nmemory (peak resident set)\n");
        const std::string reference = path("tests/bench/reference.json");
        const RunResult one = run_ringsim(ringsim, reference, {"session.data_pages=4096"});
        const RunResult ten =
            run_ringsim(ringsim, reference, {"session.data_pages=4096", "duration=10s"});
        const RunResult twenty =
            run_ringsim(ringsim, reference, {"session.data_pages=4096", "duration=20s"});
        const RunResult small = run_ringsim(ringsim, reference, {"duration=100ms"});
        const RunResult huge =
            run_ringsim(ringsim, reference, {"session.data_pages=262144", "duration=100ms"});
        if (!one.ok() || !ten.ok() || !twenty.ok() || !small.ok() || !huge.ok())
            return fail("memory runs");
        add({"memory.pages4096_1s", "reference, 4096 data pages, 1 s", one.peak_rss_mib, "MiB", "",
             0, 1});
        add({"memory.pages4096_10s", "reference, 4096 data pages, 10 s", ten.peak_rss_mib, "MiB",
             "", 0, 1});
        add({"memory.10s_over_1s", "reference, 4096 data pages, 10 s over 1 s",
             ten.peak_rss_mib / one.peak_rss_mib, "x", "<=", 1.2, 2});
        add({"memory.pages4096_20s", "reference, 4096 data pages, 20 s (buffers long wrapped)",
             twenty.peak_rss_mib, "MiB", "", 0, 1});
        add({"memory.buffers_1MiB", "reference, 1 MiB of data buffers, 100 ms", small.peak_rss_mib,
             "MiB", "", 0, 1});
        add({"memory.buffers_4GiB", "reference, 4 GiB of data buffers, 100 ms", huge.peak_rss_mib,
             "MiB", "", 0, 1});
    }

    // Soak (issue 14 §5): the reference and AUX reference for 60 s of simulated time each, the
    // resident set sampled ten times a second, and the books exact at the end. Memory is flat
    // when (1) the samples in the third quarter of the run are no higher than in the first
    // (a run's end, where the consumer drains the buffers and the books close, is left out:
    // it costs the same whatever the length), and (2) the whole run's peak is that of a
    // run a quarter as long.
    void soak() {
        std::printf("\nsoak (60 s simulated, resident set sampled every 0.1 s)\n");
        const std::pair<const char*, const char*> runs[] = {
            {"reference", "tests/bench/reference.json"},
            {"aux_reference", "tests/bench/aux-reference.json"}};
        for (const auto& [name, scenario] : runs) {
            const RunResult r = run_ringsim(ringsim, path(scenario), {"duration=60s"}, 0.1);
            const RunResult quarter_run = run_ringsim(ringsim, path(scenario), {"duration=15s"});
            const std::vector<double>& rss = r.cost.rss_mib;
            if (!r.ok() || !quarter_run.ok() || rss.size() < 8)
                return fail(std::string("soak of ") + scenario);
            const size_t q = rss.size() / 4;
            const double first = *std::max_element(rss.begin(), rss.begin() + q);
            const double third = *std::max_element(rss.begin() + 2 * q, rss.begin() + 3 * q);
            const std::string id = std::string("soak.") + name, what = name;
            add({id + ".sim_s", what + ": simulated seconds", r.sim_s, "s", "", 0, 0});
            add({id + ".wall_s", what + ": wall seconds", r.cost.wall_s, "s", "", 0, 1});
            add({id + ".rss_quarter_mib", what + ": resident set, highest in the first quarter",
                 first, "MiB", "", 0, 1});
            add({id + ".rss_third_quarter_mib",
                 what + ": resident set, highest in the third quarter", third, "MiB", "", 0, 1});
            add({id + ".rss_growth", what + ": third quarter over first", third / first, "x",
                 "<=", 1.2, 2});
            add({id + ".peak_15s_mib", what + ": peak resident set, 15 s simulated",
                 quarter_run.cost.max_rss_mib, "MiB", "", 0, 1});
            add({id + ".peak_60s_mib", what + ": peak resident set, 60 s simulated",
                 r.cost.max_rss_mib, "MiB", "", 0, 1});
            add({id + ".peak_growth", what + ": peak of 60 s over peak of 15 s",
                 r.cost.max_rss_mib / quarter_run.cost.max_rss_mib, "x", "<=", 1.2, 2});
            add({id + ".books_exact",
                 what + ": books exact at the end (1: every record and trace byte accounted for)",
                 r.books_exact ? 1.0 : 0.0, "", ">=", 1, 0});
        }
    }

    // The cost of a run in explore, matrix and sweep, and the sweep's parallel speed-up.
    void runs() {
        std::printf(
            "\nruns (explore, matrix and sweep: runs one after another in reusable workers)\n");
        const std::string dir = "/tmp/ringsim-bench-sweep-" + std::to_string(getpid());
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        nlohmann::json rates = nlohmann::json::array();
        for (int khz = 5; khz < 21; ++khz)
            rates.push_back(std::to_string(khz) + "kHz");
        // A sweep on 1 job and on 2, three times in turn: the median ratio of a pair and the
        // median 1-job wall time (one pair moves with whatever else this machine runs).
        struct Speedup {
            bool ok = true;
            double ratio = 0, one_s = 0;
        };
        const auto speedup = [&](const std::string& spec_file, const std::string& name) {
            Speedup r;
            std::vector<double> ratios, ones;
            for (int k = 0; k < 3; ++k) {
                const std::string out = dir + "/" + name + "-" + std::to_string(k);
                const Cost one = run_command(
                    {ringsim, "sweep", spec_file, "--out", out + "-one", "--jobs", "1"});
                const Cost two = run_command(
                    {ringsim, "sweep", spec_file, "--out", out + "-two", "--jobs", "2"});
                r.ok = r.ok && one.ok && two.ok;
                ratios.push_back(one.wall_s / two.wall_s);
                ones.push_back(one.wall_s);
            }
            r.ratio = median(ratios);
            r.one_s = median(ones);
            return r;
        };
        const Speedup points = speedup(spec(dir, nlohmann::json::object(), rates, 1), "points");
        // The same points simulating ten times longer: the part no second job can share
        // (ringsim's start, each worker's first touches of its memory) weighs a tenth as much.
        const Speedup longer = speedup(spec(dir, {{"duration", "1s"}}, rates, 1), "points-1s");
        const int tiny_runs = 200;
        const std::string tiny = spec(dir, {{"duration", "1us"}}, {"10kHz"}, tiny_runs / 4);
        const Cost per_run =
            run_command({ringsim, "sweep", tiny, "--out", dir + "/tiny", "--jobs", "1"});
        const Cost plain = run_command({ringsim, "run", path("scenarios/quickstart.json"), "--set",
                                        "duration=1us", "--out", dir + "/plain"});
        const Cost matrix = run_command({ringsim, "matrix", path("scenarios/teaching/matrix.json"),
                                         "--runs", "200", "--jobs", "2"});
        std::filesystem::remove_all(dir);
        if (!points.ok || !longer.ok || !per_run.ok || !plain.ok || !matrix.ok)
            return fail("sweep or matrix");
        add({"runs.per_run_ms", "sweep, a 1 us point, 1 job: wall time per run",
             per_run.wall_s * 1e3 / tiny_runs, "ms", "<=", 2, 2});
        add({"runs.per_run_sys_ms", "  of which system time (the kernel's, for the children)",
             per_run.sys_s * 1e3 / tiny_runs, "ms", "", 0, 2});
        add({"runs.per_run_faults", "  page faults per run", per_run.minor_faults / tiny_runs, "",
             "", 0, 0});
        add({"runs.plain_run_ms", "a plain `ringsim run` of that point (exec and all)",
             plain.wall_s * 1e3, "ms", "", 0, 2});
        add({"runs.matrix_200", "matrix teaching/matrix.json --runs 200 --jobs 2", matrix.wall_s,
             "s", "<", 20, 1});
        add({"runs.matrix_200_sys", "  of which system time (CPU seconds)", matrix.sys_s, "s", "",
             0, 1});
        add({"runs.sweep_2_jobs_speedup",
             "sweep, 64 quickstart points: 1 job over 2 jobs (median of 3 pairs)", points.ratio,
             "x", ">=", 1.8, 2});
        add({"runs.sweep_1_job_s", "  wall time of that sweep on 1 job", points.one_s, "s", "", 0,
             2});
        add({"runs.sweep_2_jobs_speedup_1s",
             "the same points, 1 s simulated each: 1 job over 2 jobs (median of 3 pairs)",
             longer.ratio, "x", "", 0, 2});
    }

    // A sweep spec in a scratch file: quickstart with `set`, data_pages x writer rate.
    std::string spec(const std::string& dir, const nlohmann::json& set, const nlohmann::json& rates,
                     int replicates) const {
        const nlohmann::json s = {{"scenario", path("scenarios/quickstart.json")},
                                  {"set", set},
                                  {"axes",
                                   {{{"path", "session.data_pages"}, {"values", {1, 2, 4, 8}}},
                                    {{"path", "workload.writers.0.rate"}, {"values", rates}}}},
                                  {"replicates", replicates}};
        const std::string file = dir + "/spec-" + std::to_string(replicates) + "-" +
                                 std::to_string(std::hash<std::string>{}(set.dump())) + ".json";
        std::ofstream(file) << s.dump();
        return file;
    }
};

std::string first_line_of(const std::string& command) {
    FILE* p = popen(command.c_str(), "r");
    if (!p) return "";
    char line[512] = "";
    if (!std::fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    std::string s = line;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

nlohmann::json machine() {
    utsname u{};
    uname(&u);
    const double mem_gib =
        double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024 * 1024);
    return {{"cpu", first_line_of("sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1")},
            {"cores", int(sysconf(_SC_NPROCESSORS_ONLN))},
            {"memory", format_number(mem_gib, 0) + " GiB"},
            {"kernel", std::string(u.release)},
            {"os", first_line_of(". /etc/os-release && echo \"$PRETTY_NAME\"")}};
}

} // namespace

int sc_main(int argc, char** argv) {
    Bench b;
    b.ringsim = "build/ringsim";
    std::string source = ".", results, only;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--ringsim")
            b.ringsim = argv[i + 1];
        else if (flag == "--source")
            source = argv[i + 1];
        else if (flag == "--results")
            results = argv[i + 1];
        else if (flag == "--only")
            only = argv[i + 1];
        else {
            std::fprintf(stderr, "ringsim_bench: unknown flag %s\n", flag.c_str());
            return 2;
        }
    }
    b.source = std::filesystem::absolute(source).string(); // sweep specs name it from /tmp
    const std::vector<std::pair<std::string, std::function<void()>>> groups = {
        {"speed", [&] { b.speed(); }},
        {"instructions", [&] { b.instructions(); }},
        {"memory", [&] { b.memory(); }},
        {"runs", [&] { b.runs(); }},
        {"soak", [&] { b.soak(); }}};
    // The soak has a results file of its own (docs/reliability.md shows it): only on demand.
    bool known = false;
    for (const auto& [name, run] : groups)
        if ((only.empty() && name != "soak") || only == name) {
            known = true;
            run();
        }
    if (!known) {
        std::fprintf(stderr,
                     "ringsim_bench: --only takes speed, instructions, memory, runs or soak\n");
        return 2;
    }
    if (!results.empty()) {
        char date[16];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
        nlohmann::json out = {
            {"machine", machine()},
            {"commit", first_line_of("git -C '" + b.source + "' describe --always --dirty")},
            {"date", date},
            {"figures", nlohmann::json::array()}};
        for (const auto& f : b.figures)
            out["figures"].push_back(to_json(f));
        if (!b.profile.is_null()) out["profile"] = b.profile;
        std::ofstream(results) << out.dump(2) << "\n";
        std::printf("\nwrote %s\n", results.c_str());
    }
    return b.failed ? 1 : 0;
}
