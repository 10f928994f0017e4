// The benchmark's processes: fork and exec, wait4's rusage, and callgrind's counts read back
// through callgrind_annotate.
#include "bench_process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringsim::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::string scratch_dir(const char* what) {
    return "/tmp/ringsim-bench-" + std::string(what) + "-" + std::to_string(getpid());
}

std::vector<std::string> ringsim_args(const std::string& ringsim, const std::string& scenario,
                                      const std::vector<std::string>& sets,
                                      const std::string& out) {
    std::vector<std::string> args = {ringsim, "run", scenario, "--out", out};
    for (const auto& s : sets) {
        args.push_back("--set");
        args.push_back(s);
    }
    return args;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

double produced_records(const nlohmann::json& stats) {
    return stats.at("total").at("records").at("produced").get<double>();
}

// AUX trace bytes of one fate ("produced", "delivered"), in MB (1e6 B); 0 without AUX.
double aux_mb(const nlohmann::json& stats, const char* fate) {
    if (!stats.at("total").contains("aux")) return 0;
    return stats.at("total").at("aux").at("bytes").at(fate).get<double>() / 1e6;
}

// "1,234,567" -> 1234567.
double parse_count(std::string s) {
    std::string digits;
    for (char c : s)
        if (c != ',') digits += c;
    return std::atof(digits.c_str());
}

// The resident set of process `pid` in MiB; 0 when it cannot be read.
double resident_mib(pid_t pid) {
    std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
    double size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// stats.json's identities, per buffer (records) and in the total (trace bytes), and no
// accounting violation anywhere.
bool books_close(const nlohmann::json& stats) {
    auto n = [](const nlohmann::json& o, const char* key) {
        return o.contains(key) ? o.at(key).get<uint64_t>() : uint64_t(0);
    };
    for (const auto& b : stats.at("buffers")) {
        const auto& r = b.at("records");
        const uint64_t sum = n(r, "delivered") + n(r, "lost") + n(r, "unread") +
                             n(r, "overwritten") + n(r, "corrupted") + n(r, "missing") +
                             n(r, "skipped") + n(r, "in_flight");
        if (sum != n(r, "produced")) return false;
        if (n(b.at("violations"), "accounting") != 0) return false;
    }
    if (stats.at("total").contains("aux")) {
        const auto& aux = stats.at("total").at("aux");
        const auto& t = aux.at("bytes");
        const uint64_t sum = n(t, "delivered") + n(t, "lost") + n(t, "unread") + n(t, "corrupted") +
                             n(t, "in_flight");
        if (sum != n(t, "produced") || n(aux.at("violations"), "accounting") != 0) return false;
    }
    return true;
}

} // namespace

Cost run_command(const std::vector<std::string>& command, double sample_every_s) {
    std::vector<std::string> args = command;
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr); // or the child would print our buffered lines again
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    Cost c;
    if (sample_every_s > 0) {
        while (wait4(pid, &status, WNOHANG, &ru) == 0) {
            c.rss_mib.push_back(resident_mib(pid));
            usleep(useconds_t(sample_every_s * 1e6));
        }
    } else {
        wait4(pid, &status, 0, &ru);
    }
    c.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    c.user_s = double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) * 1e-6;
    c.sys_s = double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) * 1e-6;
    c.max_rss_mib = double(ru.ru_maxrss) / 1024.0;
    c.minor_faults = double(ru.ru_minflt);
    c.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return c;
}

RunResult run_ringsim(const std::string& ringsim, const std::string& scenario,
                      const std::vector<std::string>& sets, double sample_every_s) {
    const std::string out = scratch_dir("run");
    RunResult r;
    r.cost = run_command(ringsim_args(ringsim, scenario, sets, out), sample_every_s);
    if (!r.cost.ok) return r;
    const auto run = read_json(out + "/run.json");
    const auto stats = read_json(out + "/stats.json");
    if (run.is_discarded() || stats.is_discarded()) return r;
    r.sim_s = run.at("simulated_seconds").get<double>();
    r.wall_s = run.at("wall_seconds").get<double>();
    r.peak_rss_mib = run.at("peak_rss_bytes").get<double>() / (1024.0 * 1024.0);
    r.records = produced_records(stats);
    r.books_exact = books_close(stats);
    r.trace_mb = aux_mb(stats, "produced");
    r.delivered_mb = aux_mb(stats, "delivered");
    return r;
}

Callgrind callgrind(const std::string& ringsim, const std::string& scenario,
                    const std::vector<std::string>& sets, int duration_ms) {
    const std::string out = scratch_dir("cg");
    const std::string profile = out + ".callgrind";
    std::vector<std::string> args = {"/usr/bin/valgrind", "--tool=callgrind",
                                     "--callgrind-out-file=" + profile};
    for (auto& a : ringsim_args(ringsim, scenario, sets, out))
        args.push_back(a);
    args.push_back("--set");
    args.push_back("duration=" + std::to_string(duration_ms) + "ms");
    Callgrind cg;
    if (!run_command(args).ok) return cg;
    const auto stats = read_json(out + "/stats.json");
    if (stats.is_discarded()) return cg;
    cg.records = produced_records(stats);
    cg.delivered_mb = aux_mb(stats, "delivered");
    // Self cost of every function: "  1,234 ( 0.12%)  file:function [object]"; code inlined
    // from another file has a line of its own, without the object.
    const std::string cmd = "callgrind_annotate --auto=no --threshold=100 " + profile;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return cg;
    static const std::regex row(R"(^\s*([0-9,]+) \(\s*[0-9.]+%\)\s+(.*)$)");
    char line[8192];
    while (std::fgets(line, sizeof line, p)) {
        std::string s = line;
        if (!s.empty() && s.back() == '\n') s.pop_back();
        std::smatch m;
        if (!std::regex_match(s, m, row)) continue;
        std::string rest = m[2];
        if (rest.find("PROGRAM TOTALS") != std::string::npos) {
            cg.ir = parse_count(m[1]);
            continue;
        }
        SelfCost c;
        c.ir = parse_count(m[1]);
        if (rest.size() > 2 && rest.back() == ']') {
            const size_t open = rest.rfind(" [");
            if (open != std::string::npos) {
                c.object = rest.substr(open + 2, rest.size() - open - 3);
                rest.resize(open);
            }
        }
        const size_t colon = rest.find(':');
        c.file = colon == std::string::npos ? "" : rest.substr(0, colon);
        c.function = colon == std::string::npos ? rest : rest.substr(colon + 1);
        cg.functions.push_back(c);
    }
    cg.ok = pclose(p) == 0 && cg.ir > 0 && cg.records > 0;
    std::remove(profile.c_str());
    return cg;
}

double callgrind_command(const std::vector<std::string>& argv) {
    const std::string dir = scratch_dir("cg-command");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::vector<std::string> args = {"/usr/bin/valgrind", "--tool=callgrind",
                                     "--trace-children=yes",
                                     "--callgrind-out-file=" + dir + "/callgrind.%p"};
    args.insert(args.end(), argv.begin(), argv.end());
    double ir = 0;
    if (run_command(args).ok) {
        // One profile per process, the command's and each child's: its "totals:" line.
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            std::ifstream in(entry.path());
            for (std::string line; std::getline(in, line);)
                if (line.rfind("totals: ", 0) == 0) ir += std::stod(line.substr(8));
        }
    }
    std::filesystem::remove_all(dir);
    return ir;
}

double per_record(const Callgrind& shorter, const Callgrind& longer) {
    if (!shorter.ok || !longer.ok || longer.records <= shorter.records) return 0;
    return (longer.ir - shorter.ir) / (longer.records - shorter.records);
}

double per_delivered_mb(const Callgrind& shorter, const Callgrind& longer) {
    if (!shorter.ok || !longer.ok || longer.delivered_mb <= shorter.delivered_mb) return 0;
    return (longer.ir - shorter.ir) / (longer.delivered_mb - shorter.delivered_mb);
}

namespace {

bool is_system_header(const std::string& file) {
    return file.rfind("/usr/include/", 0) == 0;
}

// A function's home file: where its own code is, so that the standard library's templates
// inlined into it count for it. callgrind_annotate gives the object on the row of the file
// callgrind met the function's code in first, which is a template header when the function
// begins with inlined code (OrderingEngine::store with a std::vector's bounds check): a file
// of the function's that is not a system header is its home then.
std::map<std::string, std::string> home_files(const Callgrind& cg) {
    std::map<std::string, std::string> home;
    for (const auto& c : cg.functions)
        if (!c.object.empty()) home.emplace(c.function, c.file);
    for (const auto& c : cg.functions) {
        const auto it = home.find(c.function);
        if (it != home.end() && is_system_header(it->second) && !is_system_header(c.file) &&
            c.file != "???")
            it->second = c.file;
    }
    return home;
}

std::map<std::string, double> grouped(const Callgrind& cg, Grouping group) {
    const auto home = home_files(cg);
    std::map<std::string, double> sums;
    for (SelfCost c : cg.functions) {
        // Every row of a function counts for its home: inlined code (no object) and, when
        // callgrind named a template header as the function's own file, that row too.
        if (const auto it = home.find(c.function); it != home.end()) c.file = it->second;
        const std::string g = group(c);
        if (!g.empty()) sums[g] += c.ir;
    }
    return sums;
}

bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}

bool starts(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

} // namespace

std::map<std::string, double> per_record_by(const Callgrind& shorter, const Callgrind& longer,
                                            Grouping group) {
    std::map<std::string, double> out;
    if (!shorter.ok || !longer.ok || longer.records <= shorter.records) return out;
    const double records = longer.records - shorter.records;
    const auto a = grouped(shorter, group);
    for (const auto& [name, ir] : grouped(longer, group)) {
        const auto it = a.find(name);
        out[name] = (ir - (it == a.end() ? 0 : it->second)) / records;
    }
    return out;
}

std::string component_of(const SelfCost& c) {
    const std::string& f = c.function;
    if (contains(c.object, "libsystemc") || starts(f, "sc_core::") || starts(f, "sc_dt::"))
        return "SystemC kernel (libsystemc)";
    if (contains(c.file, "/malloc/") || starts(f, "operator new") || starts(f, "operator delete") ||
        f == "malloc" || f == "free" || f == "cfree")
        return "allocator (malloc, free, new, delete)";
    if (contains(c.file, "/string/") || starts(f, "__mem") || starts(f, "mem"))
        return "libc memcpy, memset, memcmp";
    if (contains(c.object, "ld-linux") || contains(c.file, "/elf/"))
        return "dynamic linker and start-up";
    // callgrind_annotate names a file under its working directory relative to it
    // ("models/memory/x.cpp" when run from the source tree), any other absolute.
    for (const char* dir : {"models/", "platform/", "systemc/"}) {
        const size_t at = c.file.rfind(std::string("/") + dir);
        if (at == std::string::npos && !starts(c.file, dir)) continue;
        const size_t from = at == std::string::npos ? 0 : at + 1;
        const size_t slash = c.file.find('/', from + std::string(dir).size());
        return slash == std::string::npos ? c.file.substr(from, c.file.rfind('/') - from)
                                          : c.file.substr(from, slash - from);
    }
    if (contains(c.file, "/include/c++/"))
        return "C++ library templates (std::map, vector, ...) compiled into ringsim";
    if (contains(c.object, "libstdc++")) return "libstdc++";
    if (contains(c.object, "libc.so") || contains(c.object, "libm.so")) return "libc, other";
    return "other";
}

std::string function_of(const SelfCost& c) {
    std::string f = c.function;
    // An anonymous namespace's name holds a '(' that is not the argument list's: it goes first.
    for (size_t at; (at = f.find("(anonymous namespace)::")) != std::string::npos;)
        f.erase(at, std::string("(anonymous namespace)::").size());
    // The argument list: from the first '(' that is not operator()'s own.
    size_t from = 0;
    if (const size_t op = f.find("operator()"); op != std::string::npos) from = op + 10;
    if (const size_t paren = f.find('(', from); paren != std::string::npos) f.resize(paren);
    for (const char* ns : {"ringsim::models::", "ringsim::platform::", "ringsim::"})
        for (size_t at; (at = f.find(ns)) != std::string::npos;)
            f.erase(at, std::string(ns).size());
    const size_t slash = c.file.rfind('/');
    const std::string file = slash == std::string::npos ? c.file : c.file.substr(slash + 1);
    return file.empty() || file == "???" ? f : f + " (" + file + ")";
}

} // namespace ringsim::bench
