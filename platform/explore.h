// `ringsim explore` and `ringsim matrix`: many seeded runs of one scenario, each a
// `ringsim run` child process (SystemC allows one elaboration per process), a bounded number
// at a time, and what their violations add up to: per kind, how many runs showed it and the
// lowest seed that did, with the command that replays it. docs/exploring.md is the guide.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ringsim::platform {

// `ringsim explore SCENARIO --runs N [--jobs J] [--first-seed S] [--set PATH=VALUE]...
// [--json FILE]`. `args` follow the command word; `self_exe` is the program that runs each
// simulation as `self_exe run ...`, or empty for ringsim itself, forked without an exec. Exit code:
// 0 done (violations are findings, not errors), 2 bad arguments or a scenario the runs reject, 3
// some run ended in a model error or a crash.
int explore_main(const std::vector<std::string>& args, const std::string& self_exe);

// `ringsim matrix SCENARIO --runs N [--models sc,tso,arm] [--jobs J] [--set PATH=VALUE]...
// [--json FILE]`: explore every on/off subset of the data barriers A-D on each memory model,
// all runs sharing one pool of J children. Same exit codes.
int matrix_main(const std::vector<std::string>& args, const std::string& self_exe);

// The pieces of both commands, exposed for the tests. Their children run through the
// process pool of platform/runner/.
namespace explore {

// What one simulation showed.
struct RunResult {
    uint64_t seed = 0;
    std::string error;                     // why the run did not complete; empty when it did
    std::map<std::string, uint64_t> kinds; // violation kind -> count, nonzero counts only
    nlohmann::json first_violation;        // first entry of its violations.json, or null
    bool failed() const { return error.empty() && !kinds.empty(); }
};

// Reads a completed run's DIR/stats.json (total.violations.*) and DIR/violations.json;
// `error` says what was wrong when stats.json is missing or malformed.
RunResult read_run(const std::filesystem::path& dir, uint64_t seed);

// One violation kind over a set of runs.
struct KindTally {
    std::string kind;
    uint64_t runs = 0;       // runs that showed it
    uint64_t first_seed = 0; // the lowest of those seeds (meaningless when runs == 0)
};

// A set of runs summed up. The pointers point into the vector given to tally().
struct Tally {
    uint64_t runs = 0;
    uint64_t failed_runs = 0;                 // completed runs with at least one violation
    std::vector<KindTally> kinds;             // stale, overrun, torn (always), then others by name
    const RunResult* first_failure = nullptr; // the failed run with the lowest seed
    std::vector<const RunResult*> errors;     // runs that did not complete, by seed
};

Tally tally(const std::vector<RunResult>& runs);

// The 16 subsets of the data barriers as table rows, the barriers present in the order ABCD
// with `_` for a removed one: by number of removed barriers, then alphabetically with `_`
// before the letters (ABCD, _BCD, A_CD, AB_D, ABC_, __CD, ..., ____).
std::vector<std::string> barrier_subsets();

// The --set overrides that select a subset: present = the kind Linux uses (A ctrl, B wmb,
// C acquire, D release), removed = none.
std::vector<std::string> subset_sets(const std::string& subset);
// The same for one reader (models/user/readers.h): C and D, when present, are the reader's
// own kinds, and consumer.reader is set too.
std::vector<std::string> subset_sets(const std::string& subset, const std::string& reader);

// A matrix cell: "never", or the runs that showed each kind, "stale 37, overrun 12",
// followed by ", errors N" when runs did not complete.
std::string cell_text(const Tally& t);

} // namespace explore
} // namespace ringsim::platform
