// How the benchmark runs things: a command in its own process, measured with wait4's
// rusage; `ringsim run` with its results read back from run.json and stats.json; and
// `ringsim run` under callgrind, whose instruction count the noise of a shared machine does
// not move.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ringsim::bench {

// Wall, user and system time of a command and the children it reaped, and its peak RSS.
struct Cost {
    bool ok = false; // exited with 0
    double wall_s = 0, user_s = 0, sys_s = 0;
    double max_rss_mib = 0;
    double minor_faults = 0; // page faults served without I/O
    // With a sampling interval: the resident set every interval while it ran (MiB, from
    // /proc/PID/statm), in order.
    std::vector<double> rss_mib;
    double cpu_s() const { return user_s + sys_s; }
};
// Runs `argv` (argv[0] a path) with stdout and stderr to /dev/null; every `sample_every_s`
// seconds (0: never) it samples the child's resident set.
Cost run_command(const std::vector<std::string>& argv, double sample_every_s = 0);

// One `ringsim run SCENARIO --set ...`, what its outputs say.
struct RunResult {
    Cost cost;
    double wall_s = 0; // the simulation alone (run.json's wall_seconds: start-up excluded)
    double sim_s = 0;
    double records = 0;
    double trace_mb = 0, delivered_mb = 0; // AUX trace produced / delivered, in MB (1e6 B)
    double peak_rss_mib = 0;               // run.json's peak_rss_bytes
    // The books closed exactly: every buffer's records and every source's trace bytes
    // accounted for (stats.json's identities) and no accounting violation.
    bool books_exact = false;
    bool ok() const { return cost.ok && sim_s > 0; }
    double speed() const { return ok() ? sim_s / wall_s : 0; } // simulated s per wall s
};
RunResult run_ringsim(const std::string& ringsim, const std::string& scenario,
                      const std::vector<std::string>& sets, double sample_every_s = 0);

// Self instructions by function from one callgrind run: callgrind_annotate's
// "file:function [object]" lines.
struct SelfCost {
    std::string file, function, object;
    double ir = 0;
};
struct Callgrind {
    bool ok = false;
    double ir = 0;           // the whole run
    double records = 0;      // produced
    double delivered_mb = 0; // AUX trace delivered, in MB (1e6 B)
    std::vector<SelfCost> functions;
};
// `ringsim run SCENARIO --set duration=MS ...` under valgrind's callgrind.
Callgrind callgrind(const std::string& ringsim, const std::string& scenario,
                    const std::vector<std::string>& sets, int duration_ms);

// Instructions of a whole command (argv[0] a path) and every process it starts, under
// callgrind; 0 when it failed.
double callgrind_command(const std::vector<std::string>& argv);

// Instructions per record between two callgrind runs of one scenario, a short and a long:
// start-up and the end of the run cancel. 0 when either failed.
double per_record(const Callgrind& shorter, const Callgrind& longer);
// The same per MB of AUX trace delivered. 0 when either failed.
double per_delivered_mb(const Callgrind& shorter, const Callgrind& longer);

// Self instructions per record between the two runs, summed by group: `group` maps a
// function's cost to a name ("" leaves it out).
using Grouping = std::string (*)(const SelfCost&);
std::map<std::string, double> per_record_by(const Callgrind& shorter, const Callgrind& longer,
                                            Grouping group);
// The component a function's cost belongs to: a directory of ringsim (models/check, ...),
// the SystemC kernel, the allocator, libc's copies, the dynamic linker, ...
std::string component_of(const SelfCost& c);
// "Class::function (file)", without the argument list and ringsim's namespaces.
std::string function_of(const SelfCost& c);

} // namespace ringsim::bench
