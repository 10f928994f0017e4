#include "platform/commands.h"

#include <iostream>
#include <vector>

namespace ringsim::platform {

namespace {

struct Command {
    const char* name;
    // Its forms, each after "ringsim "; a form's continuation lines (after "\n") are
    // indented to sit under its arguments.
    std::vector<const char*> forms;
    const char* summary; // the line under it in ringsim's own usage
    const char* details; // the rest of the command's own usage ("" for none)
};

// In the order `ringsim --help` lists them.
const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"run",
         {"run SCENARIO [--set PATH=VALUE]... [--seed N] [--out DIR]\n"
          "[--timeline FILE [--timeline-window FROM:TO]] [--vcd FILE [--vcd-window FROM:TO]]\n"
          "[--series INTERVAL]\n"
          "[--perf-data FILE] [--progress] [--stats-only] [--max-memory SIZE]"},
         "simulate; write DIR/stats.json and DIR/run.json, print a summary",
         "  --timeline FILE    also write the memory operations (of FROM..TO, e.g. 1ms:1.2ms)\n"
         "                     as a trace for ui.perfetto.dev (docs/timeline.md)\n"
         "  --vcd FILE         also write a value change dump (of FROM..TO) for GTKWave: heads,\n"
         "                     tails, fill levels, wake-ups, the consumer's state, the ETR's\n"
         "                     RWP and STS, the barriers (docs/waveforms.md)\n"
         "  --series INTERVAL  also write DIR/series.csv: per INTERVAL (e.g. 100us) and buffer,\n"
         "                     records produced, delivered, lost and the fill level\n"
         "                     (docs/series.md)\n"
         "  --progress         a progress line on stderr every second (simulated time, percent\n"
         "                     of the duration, events per second, ETA); on a terminal it is\n"
         "                     shown without asking, after the first second\n"
         "  --stats-only       write DIR/stats.json alone (and series.csv), print of the\n"
         "                     summary its warnings alone: no run.json, no violations.json;\n"
         "                     each point of a sweep runs so\n"
         "SIGINT or SIGTERM stops the run at the end of its current slice of simulated time\n"
         "(at most about 50 ms of wall time): the books close there, stats.json and run.json\n"
         "(\"completed\": false, \"stopped_by\") are written, the summary printed (with\n"
         "--stats-only: stats.json and the summary's warning), and the exit status is 130 or\n"
         "143.\n"},
        {"validate",
         {"validate SCENARIO [--set PATH=VALUE]... [--max-memory SIZE]"},
         "check a scenario and its overrides, report every error",
         "Prints the memory the run may need at most, part by part with the keys that drive\n"
         "each, and the records and events it will take.\n"
         "  --max-memory SIZE  refuse (exit 2) a scenario that may need more (e.g. 8GiB;\n"
         "                     default: 80% of physical memory); `run` takes it too\n"},
        {"lesson",
         {"lesson NAME [--out DIR] [--vcd FILE [--vcd-window FROM:TO]] [--timeline FILE]",
          "lesson --list"},
         "run one lesson of scenarios/teaching/ with the seed that shows it, and tell it",
         "Prints the lesson's story, runs it as `ringsim run` would (its summary, the first\n"
         "violation explained and its fix), says whether it showed the violations the lesson is\n"
         "about (exit 1 if not), and how to see its waveform. The lessons are built into the\n"
         "binary; --list names them with their seed and what each shows (docs/tutorial.md).\n"},
        {"explore",
         {"explore SCENARIO --runs N [--jobs J] [--first-seed S] [--set PATH=VALUE]...\n"
          "[--json FILE]"},
         "run N seeds, J at a time: per violation kind, runs and first seed",
         "Runs SCENARIO with seeds S..S+N-1 (S defaults to 1), J simulations at a time (default:\n"
         "one per online CPU), and reports each kind of violation: how many runs showed it, the\n"
         "lowest seed that did, its explanation, and the command that replays it.\n"},
        {"matrix",
         {"matrix SCENARIO --runs N [--models sc,tso,arm] [--readers all|R,R...] [--jobs J]\n"
          "[--set PATH=VALUE]... [--json FILE]"},
         "explore the 16 subsets of the data barriers A-D on each memory model",
         "Explores every on/off subset of the data barriers A-D (present: A ctrl, B wmb, C\n"
         "acquire, D release; removed: none) on each memory model, N runs (seeds 1..N) each, and\n"
         "prints which violations each combination showed.\n"
         "  --readers all|R,...  a table per consumer.reader (push, libperf, libbpf,\n"
         "             cilium-ebpf, aya, aya-0.13), C and D present being the reader's own\n"
         "             (docs/readers.md)\n"},
        {"litmus",
         {"litmus FILE|DIR... [--runs N] [--trace K] [--exceptions FILE]",
          "litmus FILE|DIR... --emit herd DIR"},
         "run litmus tests on sc, tso and arm; check Allowed / Forbidden",
         "Runs litmus tests (docs/litmus.md) under the sc, tso and arm models. A Forbidden\n"
         "outcome must never be seen; an Allowed one must be seen within the runs the file\n"
         "states. A DIR means every *.litmus file in it. A file may also be one of the\n"
         "kernel's C litmus tests (tools/memory-model/litmus-tests/): its Result line is the\n"
         "verdict, except where an architecture differs (the exceptions file); one that uses a\n"
         "primitive ringsim lacks is listed with it, and the count expressed is printed.\n"
         "  --runs N   runs per test and model (default and minimum: the file's `runs`; 2000\n"
         "             for a kernel test)\n"
         "  --exceptions FILE  the kernel tests' exceptions to LKMM's verdicts (default: the\n"
         "             built-in platform/litmus/lkmm-exceptions.txt)\n"
         "  --trace K  also print run K (1-based, as in \"first in run K\") of every test and\n"
         "             model: each operation's issue and perform time, the final state\n"
         "  --emit herd DIR  run nothing: write each test as herd7 tests, DIR/AArch64/NAME.litmus\n"
         "             and DIR/X86/NAME.litmus, with the instructions Linux compiles each\n"
         "             statement to (docs/litmus.md)\n"},
        {"sweep",
         {"sweep SPEC --out DIR [--jobs J] [--shard I/N] [--set PATH=VALUE]...\n"
          "[--timeout SECONDS] [--retry-failed] [--force]",
          "sweep SPEC --list [--set PATH=VALUE]..."},
         "run a sweep spec's points (resumable, shardable; docs/sweeps.md)",
         "Runs every (point, replicate) of the sweep spec SPEC, J at a time (default: one per\n"
         "online CPU), each in a child process with a wall-clock limit (default 3600 s; 0: none),\n"
         "and writes a JSON line per finished one to DIR/points-I-of-N.jsonl. --shard I/N\n"
         "(0 <= I < N) runs the I-th of N disjoint slices; without it, SLURM_ARRAY_TASK_ID/COUNT/\n"
         "MIN choose it when set. Rerunning the same command resumes (--retry-failed also redoes\n"
         "failed runs). --list prints the points and exits.\n"},
        {"merge",
         {"merge DIR... [--csv FILE] [--json FILE] [--answer FILE]"},
         "one table of a sweep's shards: mean and 95% CI per point",
         "Merges the results of one sweep from its shards and directories (duplicates dropped)\n"
         "and prints one row per point: replicates, failures, and per metric the mean and its\n"
         "95% confidence interval; with a target, the answer too.\n"},
        {"params",
         {"params"},
         "every scenario key with its type or unit, default and description",
         ""},
        {"stats", {"stats"}, "every statistic of stats.json with its unit and description", ""},
    };
    return all;
}

const char* const kExitCodes =
    "exit codes: 0 done; 1 a litmus check failed; 2 bad scenario, spec, file, override or\n"
    "flag; 3 model error (explore, sweep: a run failed); 130 interrupted.\n";

// A form with its continuation lines indented by `indent` spaces.
std::string indented(const std::string& text, size_t indent) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '\n') out += std::string(indent, ' ');
    }
    return out;
}

} // namespace

std::string usage(const std::string& cmd) {
    if (cmd.empty()) {
        std::string u = "usage: ringsim COMMAND [ARGS]\n\n"
                        "A SystemC co-simulator of the Linux perf ring buffer.\n\ncommands:\n";
        for (const Command& c : commands()) {
            for (const char* form : c.forms)
                u += "  " + indented(form, 6) + "\n";
            u += std::string(22, ' ') + c.summary + "\n";
        }
        u += "  --help, --version\n\n"
             "PATH is a dotted key (session.data_pages, workload.writers.0.rate) or a JSON\n"
             "pointer; VALUE is JSON, or a plain string (--set duration=5ms).\n";
        return u + kExitCodes;
    }
    for (const Command& c : commands()) {
        if (cmd != c.name) continue;
        std::string u;
        for (const char* form : c.forms)
            u += (u.empty() ? "usage: ringsim " : "       ringsim ") + indented(form, 19) + "\n";
        return u + c.summary + ".\n" + c.details + kExitCodes;
    }
    return usage("");
}

int bad_usage(const std::string& cmd, const std::string& why) {
    std::cerr << "ringsim " << cmd << ": " << why << "\n" << usage(cmd);
    return kExitBadInput;
}

} // namespace ringsim::platform
