// `ringsim explore` and `ringsim matrix`: argument checking, one `ringsim run` child per
// seed through the process pool (platform/runner/), reading each child's stats.json and
// violations.json, and the reports. Children are processes, not threads, because SystemC allows one
// elaboration per process; results are kept by seed, so the output does not depend on which child
// ends first.
#include "platform/explore.h"

#include "models/user/readers.h"

#include "platform/arg_number.h"
#include "platform/commands.h"
#include "platform/runner/process_pool.h"
#include "platform/runner/ringsim_child.h"

#include <boost/program_options.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>

namespace ringsim::platform {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using nlohmann::json;

namespace explore {

namespace {

// The kinds every report lists, in this order, even when no run showed them.
const std::vector<std::string> kMainKinds = {"stale", "overrun", "torn"};

// Kinds first in the fixed order, then any other by name.
bool kind_before(const std::string& a, const std::string& b) {
    const auto rank = [](const std::string& k) {
        return std::find(kMainKinds.begin(), kMainKinds.end(), k) - kMainKinds.begin();
    };
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
}

} // namespace

RunResult read_run(const fs::path& dir, uint64_t seed) {
    RunResult r;
    r.seed = seed;
    const auto stats = runner::read_json(dir / "stats.json");
    if (!stats) {
        r.error = "stats.json missing or not JSON";
        return r;
    }
    const json* counts = nullptr;
    if (stats->is_object() && stats->contains("total") && (*stats)["total"].is_object() &&
        (*stats)["total"].contains("violations"))
        counts = &(*stats)["total"]["violations"];
    if (!counts || !counts->is_object()) {
        r.error = "stats.json has no total.violations";
        return r;
    }
    for (const auto& [kind, value] : counts->items()) {
        // "total" sums the kinds; it is not one.
        if (kind != "total" && value.is_number_unsigned() && value.get<uint64_t>() > 0)
            r.kinds[kind] = value.get<uint64_t>();
    }
    // The AUX path's violations, as kinds of their own ("aux_stale", ...).
    const json& total = (*stats)["total"];
    if (total.contains("aux") && total["aux"].is_object() && total["aux"].contains("violations"))
        for (const auto& [kind, value] : total["aux"]["violations"].items())
            if (kind != "total" && value.is_number_unsigned() && value.get<uint64_t>() > 0)
                r.kinds["aux_" + kind] = value.get<uint64_t>();
    const auto violations = runner::read_json(dir / "violations.json");
    if (violations && violations->is_object() && violations->contains("violations")) {
        const json& list = (*violations)["violations"];
        if (list.is_array() && !list.empty()) r.first_violation = list.front();
    }
    return r;
}

Tally tally(const std::vector<RunResult>& runs) {
    Tally t;
    std::map<std::string, KindTally> kinds;
    for (const auto& k : kMainKinds)
        kinds[k].kind = k;
    for (const RunResult& r : runs) {
        ++t.runs;
        if (!r.error.empty()) {
            t.errors.push_back(&r);
            continue;
        }
        if (!r.failed()) continue;
        ++t.failed_runs;
        if (!t.first_failure || r.seed < t.first_failure->seed) t.first_failure = &r;
        for (const auto& [kind, count] : r.kinds) {
            KindTally& k = kinds[kind];
            k.kind = kind;
            if (!k.runs || r.seed < k.first_seed) k.first_seed = r.seed;
            ++k.runs;
        }
    }
    for (auto& [name, k] : kinds)
        t.kinds.push_back(k);
    std::sort(t.kinds.begin(), t.kinds.end(),
              [](const KindTally& a, const KindTally& b) { return kind_before(a.kind, b.kind); });
    std::sort(t.errors.begin(), t.errors.end(),
              [](const RunResult* a, const RunResult* b) { return a->seed < b->seed; });
    return t;
}

namespace {

const char kBarrierNames[] = "ABCD";
// The kind each barrier has when present: the one Linux uses (MEMORY-MODEL.md).
const char* const kBarrierOn[] = {"ctrl", "wmb", "acquire", "release"};

} // namespace

std::vector<std::string> barrier_subsets() {
    std::vector<std::string> rows;
    for (unsigned removed = 0; removed < 16; ++removed) {
        std::string row = kBarrierNames;
        for (int b = 0; b < 4; ++b)
            if (removed & (8u >> b)) row[b] = '_';
        rows.push_back(row);
    }
    const auto removed_count = [](const std::string& s) {
        return std::count(s.begin(), s.end(), '_');
    };
    // '_' sorts after the letters in ASCII; map it below them for "_ before letters".
    const auto key = [](std::string s) {
        std::replace(s.begin(), s.end(), '_', ' ');
        return s;
    };
    std::sort(rows.begin(), rows.end(), [&](const std::string& a, const std::string& b) {
        if (removed_count(a) != removed_count(b)) return removed_count(a) < removed_count(b);
        return key(a) < key(b);
    });
    return rows;
}

std::vector<std::string> subset_sets(const std::string& subset) {
    std::vector<std::string> sets;
    for (int b = 0; b < 4; ++b) {
        const bool on = b < int(subset.size()) && subset[b] == kBarrierNames[b];
        sets.push_back(std::string("barriers.data.") + kBarrierNames[b] + "=" +
                       (on ? kBarrierOn[b] : "none"));
    }
    return sets;
}

std::vector<std::string> subset_sets(const std::string& subset, const std::string& reader) {
    const models::ReaderTraits* r = models::reader_named(reader.c_str());
    std::vector<std::string> sets = subset_sets(subset);
    for (int b : {2, 3}) {
        const bool on = b < int(subset.size()) && subset[b] == kBarrierNames[b];
        if (on && r)
            sets[size_t(b)] = std::string("barriers.data.") + kBarrierNames[b] + "=" +
                              models::barrier_kind_name(b == 2 ? r->c : r->d);
    }
    sets.push_back("consumer.reader=" + reader);
    return sets;
}

std::string cell_text(const Tally& t) {
    std::string text;
    const auto add = [&](const std::string& what, uint64_t n) {
        text += (text.empty() ? "" : ", ") + what + " " + std::to_string(n);
    };
    for (const KindTally& k : t.kinds)
        if (k.runs) add(k.kind, k.runs);
    if (!t.errors.empty()) add("errors", t.errors.size());
    return text.empty() ? "never" : text;
}

} // namespace explore

namespace {

using namespace explore;
using runner::ChildStatus;
using runner::Job;
using runner::PoolEnd;
using runner::read_text;
using runner::run_pool;

const std::vector<std::string> kModels = {"sc", "tso", "arm"};
// The keys matrix sets in every cell, which --set must leave alone.
const std::vector<std::string> kMatrixKeys = {"barriers.data.A", "barriers.data.B",
                                              "barriers.data.C", "barriers.data.D", "memory.model"};

// What either command was asked to do.
struct Options {
    std::string cmd; // "explore" or "matrix"
    std::string scenario;
    uint64_t runs = 0;
    unsigned jobs = 1;
    uint64_t first_seed = 1;
    std::vector<std::string> sets;
    std::string json_file;
    std::vector<std::string> models;  // matrix only
    std::vector<std::string> readers; // matrix --readers: a table per reader; empty: none
};

// Says why the arguments are wrong, with the usage; returns the exit code for that.
int bad_args(const Options& o, const std::string& why) {
    return bad_usage(o.cmd, why);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    std::string part;
    while (std::getline(in, part, sep))
        parts.push_back(part);
    if (!s.empty() && s.back() == sep) parts.push_back("");
    return parts;
}

// The dotted path a --set assigns ("/memory/model=arm" -> "memory.model").
std::string set_path(const std::string& set) {
    std::string path = set.substr(0, set.find('='));
    if (!path.empty() && path[0] == '/') {
        path.erase(0, 1);
        std::replace(path.begin(), path.end(), '/', '.');
    }
    return path;
}

// Whether two dotted paths touch the same key (equal, or one contains the other).
bool overlaps(const std::string& a, const std::string& b) {
    const auto within = [](const std::string& in, const std::string& outer) {
        return in.compare(0, outer.size() + 1, outer + ".") == 0;
    };
    return a == b || within(a, b) || within(b, a);
}

std::optional<std::string> check_readers(const std::string& list, std::vector<std::string>& out) {
    std::vector<std::string> names;
    for (const auto& r : models::all_readers())
        names.push_back(r.name);
    for (const std::string& r : list == "all" ? names : split(list, ',')) {
        if (!models::reader_named(r.c_str())) {
            std::string known;
            for (const std::string& n : names)
                known += (known.empty() ? "" : ", ") + n;
            return "--readers: unknown reader '" + r + "' (expected all, or some of " + known + ")";
        }
        if (std::find(out.begin(), out.end(), r) != out.end())
            return "--readers: '" + r + "' given twice";
        out.push_back(r);
    }
    if (out.empty()) return std::string("--readers: expected a list such as libbpf,aya, or all");
    return std::nullopt;
}

std::optional<std::string> check_models(const std::string& list, std::vector<std::string>& out) {
    for (const std::string& m : split(list, ',')) {
        if (std::find(kModels.begin(), kModels.end(), m) == kModels.end())
            return "--models: unknown memory model '" + m + "' (expected sc, tso or arm)";
        if (std::find(out.begin(), out.end(), m) != out.end())
            return "--models: '" + m + "' given twice";
        out.push_back(m);
    }
    if (out.empty()) return std::string("--models: expected a list such as sc,tso,arm");
    return std::nullopt;
}

// Checks what boost parsed; returns the message for the first problem.
std::optional<std::string> check_options(const po::variables_map& vm, Options& o) {
    if (o.scenario.empty()) return std::string("expected a SCENARIO file");
    if (!vm.count("runs")) return std::string("--runs N is required");
    const auto runs = parse_whole_number(vm["runs"].as<std::string>(), 1, UINT32_MAX);
    if (!runs)
        return "--runs: expected a whole number from 1, found '" + vm["runs"].as<std::string>() +
               "'";
    o.runs = *runs;
    if (vm.count("jobs")) {
        const auto jobs = parse_whole_number(vm["jobs"].as<std::string>(), 1, 4096);
        if (!jobs)
            return "--jobs: expected a whole number from 1 to 4096, found '" +
                   vm["jobs"].as<std::string>() + "'";
        o.jobs = unsigned(*jobs);
    }
    if (vm.count("first-seed")) {
        const auto seed =
            parse_whole_number(vm["first-seed"].as<std::string>(), 0, UINT64_MAX - o.runs);
        if (!seed)
            return "--first-seed: expected a whole number, found '" +
                   vm["first-seed"].as<std::string>() + "'";
        o.first_seed = *seed;
    }
    if (o.cmd == "matrix") {
        if (auto why = check_models(
                vm.count("models") ? vm["models"].as<std::string>() : "sc,tso,arm", o.models))
            return why;
        if (vm.count("readers"))
            if (auto why = check_readers(vm["readers"].as<std::string>(), o.readers)) return why;
        std::vector<std::string> keys = kMatrixKeys;
        if (!o.readers.empty()) keys.push_back("consumer.reader");
        for (const std::string& set : o.sets)
            for (const std::string& key : keys)
                if (overlaps(set_path(set), key))
                    return "--set " + set + ": matrix sets " + key + " itself";
    }
    if (!o.json_file.empty()) {
        const fs::path dir = fs::path(o.json_file).parent_path();
        if (!dir.empty() && !fs::is_directory(dir))
            return "--json " + o.json_file + ": no directory " + dir.string();
    }
    return std::nullopt;
}

// Parses either command's arguments; returns an exit code when they are wrong.
std::optional<int> parse_options(const std::vector<std::string>& args, Options& o) {
    po::options_description opts;
    opts.add_options()("scenario", po::value<std::string>(&o.scenario))(
        "runs", po::value<std::string>())("jobs", po::value<std::string>())(
        "set", po::value<std::vector<std::string>>(&o.sets)->composing())(
        "json", po::value<std::string>(&o.json_file));
    if (o.cmd == "explore") opts.add_options()("first-seed", po::value<std::string>());
    if (o.cmd == "matrix")
        opts.add_options()("models", po::value<std::string>())("readers", po::value<std::string>());
    po::positional_options_description pos;
    pos.add("scenario", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return bad_args(o, e.what());
    }
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 ? unsigned(cpus) : 1;
    if (auto why = check_options(vm, o)) return bad_args(o, *why);
    return std::nullopt;
}

// A word as the shell reads it back: plain when safe, else in single quotes.
std::string shell_word(const std::string& s) {
    const std::string safe =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%";
    if (!s.empty() && s.find_first_not_of(safe) == std::string::npos) return s;
    std::string quoted = "'";
    for (char c : s)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string replay_command(const Options& o, uint64_t seed, const std::vector<std::string>& sets) {
    std::string cmd = "ringsim run " + shell_word(o.scenario) + " --seed " + std::to_string(seed);
    for (const std::string& s : sets)
        cmd += " --set " + shell_word(s);
    return cmd;
}

// Removes the directory tree on every way out, including an early return or an exception.
class TempDir {
public:
    TempDir() {
        std::error_code ec;
        std::string pattern = (fs::temp_directory_path(ec) / "ringsim-explore-XXXXXX").string();
        if (!ec && mkdtemp(pattern.data())) m_path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        if (!m_path.empty()) fs::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};

// One cell of a study: the extra --set values its runs get, and their results by seed.
struct Cell {
    std::vector<std::string> sets;
    std::vector<RunResult> results;
};

// A run that did not complete: its status and what it said on stderr.
RunResult error_run(uint64_t seed, const ChildStatus& status, const fs::path& dir) {
    RunResult r;
    r.seed = seed;
    std::string said = read_text(dir / "stderr.txt");
    while (!said.empty() && said.back() == '\n')
        said.pop_back();
    r.error = status.describe() + (said.empty() ? "" : ": " + said);
    return r;
}

// Runs every (cell, seed) simulation through one pool of o.jobs children and fills each
// cell's results in seed order. Returns an exit code when the study cannot go on: a child
// rejected the scenario (its stderr is printed) or there is nowhere to run.
std::optional<int> run_study(const Options& o, std::vector<Cell>& cells,
                             const std::string& self_exe) {
    if (!self_exe.empty() && access(self_exe.c_str(), X_OK) != 0) {
        std::cerr << "ringsim " << o.cmd << ": cannot execute " << self_exe << ": "
                  << std::strerror(errno) << "\n";
        return kExitModelError;
    }
    TempDir tmp;
    if (tmp.path().empty()) {
        std::cerr << "ringsim " << o.cmd << ": cannot create a temporary directory\n";
        return kExitBadInput;
    }
    for (Cell& c : cells)
        c.results.assign(o.runs, RunResult{});
    const size_t total = cells.size() * o.runs;
    const bool show_progress = isatty(STDERR_FILENO);
    const auto dir_of = [&](size_t i) { return tmp.path() / std::to_string(i); };
    const auto seed_of = [&](size_t i) { return o.first_seed + i % o.runs; };

    const auto make_job = [&](size_t i) {
        std::vector<std::string> args = {
            "run", o.scenario, "--seed", std::to_string(seed_of(i)), "--out", dir_of(i).string()};
        for (const auto* sets : {&o.sets, &std::as_const(cells[i / o.runs]).sets})
            for (const std::string& s : *sets)
                args.insert(args.end(), {"--set", s});
        if (self_exe.empty()) return runner::ringsim_job(std::move(args), dir_of(i));
        args.insert(args.begin(), self_exe);
        return Job{args, {}, dir_of(i)};
    };
    size_t done = 0;
    std::optional<int> stop;
    const auto on_done = [&](size_t i, const ChildStatus& status) {
        const fs::path dir = dir_of(i);
        if (status.exit_code == kExitBadInput) {
            std::cerr << (show_progress ? "\n" : "") << read_text(dir / "stderr.txt");
            stop = kExitBadInput;
            return false;
        }
        RunResult& r = cells[i / o.runs].results[i % o.runs];
        r = status.exit_code == 0 ? read_run(dir, seed_of(i)) : error_run(seed_of(i), status, dir);
        std::error_code ec;
        fs::remove_all(dir, ec);
        if (show_progress)
            std::cerr << "\rringsim " << o.cmd << ": " << ++done << "/" << total << " runs"
                      << std::flush;
        return true;
    };
    const PoolEnd end = run_pool(total, o.jobs, make_job, on_done);
    if (show_progress && !stop) std::cerr << "\n";
    if (end == PoolEnd::interrupted) {
        std::cerr << "ringsim " << o.cmd << ": interrupted\n";
        return kExitInterrupted;
    }
    return stop;
}

bool write_json_file(const Options& o, const json& j) {
    std::ofstream f(o.json_file);
    f << j.dump(2) << "\n";
    if (f) return true;
    std::cerr << "ringsim " << o.cmd << ": cannot write " << o.json_file << "\n";
    return false;
}

std::string seeds_text(const Options& o) {
    return "seed" + (o.runs == 1 ? " " + std::to_string(o.first_seed)
                                 : "s " + std::to_string(o.first_seed) + ".." +
                                       std::to_string(o.first_seed + o.runs - 1));
}

// Prints text line by line, each line indented (but the first, unless `first` is set).
void print_indented(std::ostream& out, const std::string& text, const std::string& indent,
                    bool first = true) {
    std::stringstream in(text);
    std::string line;
    for (bool at_first = true; std::getline(in, line); at_first = false)
        out << (at_first && !first ? "" : indent) << line << "\n";
}

// A run (one that did not complete, or failed) with the --set values that replay it.
struct ReplayableRun {
    const RunResult* run;
    std::vector<std::string> sets;
};

// Lists the runs that did not complete and how to replay the first; returns the exit code.
int report_errors(const Options& o, const std::vector<ReplayableRun>& errors) {
    if (errors.empty()) return kExitOk;
    std::cout << "\n" << errors.size() << " run(s) did not complete (model error or crash):\n";
    const size_t shown = std::min<size_t>(errors.size(), 10);
    for (size_t i = 0; i < shown; ++i) {
        std::cout << "  seed " << errors[i].run->seed << ": ";
        print_indented(std::cout, errors[i].run->error, "    ", false);
    }
    if (shown < errors.size()) std::cout << "  ... and " << errors.size() - shown << " more\n";
    std::cout << "replay the first:\n  "
              << replay_command(o, errors.front().run->seed, errors.front().sets) << "\n";
    return kExitModelError;
}

void print_first_failure(const Options& o, const RunResult& r) {
    const json& v = r.first_violation;
    const auto field = [&](const char* key) {
        return v.is_object() && v.contains(key) && v[key].is_string() ? v[key].get<std::string>()
                                                                      : std::string("?");
    };
    std::cout << "\nfirst violation of seed " << r.seed;
    if (v.is_object()) {
        std::cout << ": " << field("kind") << " in " << field("buffer") << "\n";
        print_indented(std::cout, field("explanation"), "  ");
    } else {
        std::cout << ": (its violations.json has none listed)\n";
    }
    std::cout << "\nreplay it:\n  " << replay_command(o, r.seed, o.sets) << "\n";
}

void print_explore(const Options& o, const Tally& t) {
    std::cout << "ringsim explore: " << o.scenario << ", " << o.runs << " runs (" << seeds_text(o)
              << ")";
    for (const std::string& s : o.sets)
        std::cout << " --set " << shell_word(s);
    std::cout << "\n\n"
              << std::left << std::setw(14) << "kind" << std::right << std::setw(8) << "runs"
              << std::setw(12) << "first seed"
              << "\n";
    for (const KindTally& k : t.kinds)
        std::cout << std::left << std::setw(14) << k.kind << std::right << std::setw(8) << k.runs
                  << std::setw(12) << (k.runs ? std::to_string(k.first_seed) : "-") << "\n";
    std::cout << "\n";
    if (t.failed_runs)
        std::cout << t.failed_runs << " of " << t.runs << " runs showed violations\n";
    else
        std::cout << "no violations in " << t.runs - t.errors.size() << " completed runs\n";
    if (t.first_failure) print_first_failure(o, *t.first_failure);
}

json explore_json(const Options& o, const Tally& t) {
    json kinds = json::object();
    for (const KindTally& k : t.kinds)
        kinds[k.kind] = {{"runs", k.runs}, {"first_seed", k.runs ? json(k.first_seed) : json()}};
    return {{"scenario", o.scenario},
            {"runs", o.runs},
            {"sets", o.sets},
            {"seeds", {o.first_seed, o.first_seed + o.runs - 1}},
            {"kinds", kinds},
            {"failed_runs", t.failed_runs},
            {"error_runs", t.errors.size()}};
}

// Prints one table line: the first column, then each cell padded to its column's width (but
// the last, so that no line ends in blanks).
void print_table_line(const std::string& first, const std::vector<std::string>& cells,
                      const std::vector<size_t>& width) {
    std::cout << std::left << std::setw(10) << first;
    for (size_t m = 0; m < cells.size(); ++m)
        std::cout << std::setw(m + 1 < cells.size() ? int(width[m] + 2) : 0) << cells[m];
    std::cout << std::right << "\n";
}

// Prints the table (one per reader with --readers): one row per barrier subset, one column
// per model.
void print_matrix(const Options& o, const std::vector<std::string>& rows,
                  const std::vector<std::string>& cells) {
    const size_t models = o.models.size();
    std::vector<size_t> width;
    for (size_t m = 0; m < models; ++m) {
        width.push_back(o.models[m].size());
        for (size_t r = 0; r < cells.size() / models; ++r)
            width[m] = std::max(width[m], cells[r * models + m].size());
    }
    std::cout << "ringsim matrix: " << o.scenario << ", " << o.runs << " runs (" << seeds_text(o)
              << ") per cell";
    for (const std::string& s : o.sets)
        std::cout << " --set " << shell_word(s);
    if (o.readers.empty()) {
        std::cout << "\nrows: the data barriers present (A ctrl, B wmb, C acquire, D release; _ "
                     "none)\ncells: how many runs showed each kind of violation\n\n";
    } else {
        std::cout << "\nrows: the data barriers present (A ctrl, B wmb, C and D as each reader's "
                     "code has them; _ none)\ncells: how many runs showed each kind of "
                     "violation\n";
    }
    const size_t tables = o.readers.empty() ? 1 : o.readers.size();
    for (size_t t = 0; t < tables; ++t) {
        if (!o.readers.empty()) {
            const models::ReaderTraits& r = *models::reader_named(o.readers[t].c_str());
            std::cout << "\nreader " << r.name << ": C " << models::barrier_kind_name(r.c) << ", D "
                      << models::barrier_kind_name(r.d) << "; " << r.code << "\n";
        }
        print_table_line("barriers", o.models, width);
        for (size_t r = 0; r < rows.size(); ++r) {
            const auto row = cells.begin() + std::ptrdiff_t((t * rows.size() + r) * models);
            print_table_line(rows[r], {row, row + std::ptrdiff_t(models)}, width);
        }
    }
}

int run_explore(const Options& o, const std::string& self_exe) {
    std::vector<Cell> cells(1);
    if (auto stop = run_study(o, cells, self_exe)) return *stop;
    const Tally t = tally(cells[0].results);
    print_explore(o, t);
    std::vector<ReplayableRun> errors;
    for (const RunResult* r : t.errors)
        errors.push_back({r, o.sets});
    const int code = report_errors(o, errors);
    if (!o.json_file.empty() && !write_json_file(o, explore_json(o, t))) return kExitBadInput;
    return code;
}

int run_matrix(const Options& o, const std::string& self_exe) {
    const std::vector<std::string> rows = barrier_subsets();
    // readers x rows x models, row-major; no --readers: the scenario's own reader, once.
    const std::vector<std::string> readers =
        o.readers.empty() ? std::vector<std::string>{""} : o.readers;
    std::vector<Cell> cells;
    for (const std::string& reader : readers)
        for (const std::string& row : rows)
            for (const std::string& model : o.models) {
                cells.push_back({reader.empty() ? subset_sets(row) : subset_sets(row, reader), {}});
                cells.back().sets.push_back("memory.model=" + model);
            }
    if (auto stop = run_study(o, cells, self_exe)) return *stop;

    std::vector<std::string> texts;
    json json_rows = json::array();
    std::vector<ReplayableRun> errors;
    std::optional<ReplayableRun> first_failure; // of the first cell, in table order, that failed
    std::string first_failure_cell;
    for (size_t c = 0; c < cells.size(); ++c) {
        const Tally t = tally(cells[c].results);
        texts.push_back(cell_text(t));
        json violations = json::object();
        for (const KindTally& k : t.kinds)
            violations[k.kind] = k.runs;
        const std::string& row = rows[c / o.models.size() % rows.size()];
        const std::string& reader = readers[c / (o.models.size() * rows.size())];
        json cell_json = {{"barriers", row},
                          {"model", o.models[c % o.models.size()]},
                          {"runs", o.runs},
                          {"failed_runs", t.failed_runs},
                          {"violations", violations}};
        if (!reader.empty()) cell_json["reader"] = reader;
        json_rows.push_back(cell_json);
        std::vector<std::string> sets = o.sets;
        sets.insert(sets.end(), cells[c].sets.begin(), cells[c].sets.end());
        for (const RunResult* r : t.errors)
            errors.push_back({r, sets});
        if (t.first_failure && !first_failure) {
            first_failure = ReplayableRun{t.first_failure, sets};
            first_failure_cell = row + " on " + o.models[c % o.models.size()] +
                                 (reader.empty() ? "" : " with reader " + reader);
        }
    }
    print_matrix(o, rows, texts);
    if (first_failure)
        std::cout << "\nthe first failing cell, " << first_failure_cell
                  << ", first fails with seed " << first_failure->run->seed << "; replay it:\n  "
                  << replay_command(o, first_failure->run->seed, first_failure->sets) << "\n";
    const int code = report_errors(o, errors);
    if (!o.json_file.empty() && !write_json_file(o, json{{"rows", json_rows}}))
        return kExitBadInput;
    return code;
}

// Parses, then runs `body`; no exception gets past here to the user.
int guarded(const std::string& cmd, const std::vector<std::string>& args,
            const std::string& self_exe, int (*body)(const Options&, const std::string&)) {
    try {
        Options o;
        o.cmd = cmd;
        if (auto code = parse_options(args, o)) return *code;
        return body(o, self_exe);
    } catch (const std::exception& e) {
        std::cerr << "ringsim " << cmd << ": internal error: " << e.what() << "\n";
        return kExitModelError;
    }
}

} // namespace

int explore_main(const std::vector<std::string>& args, const std::string& self_exe) {
    return guarded("explore", args, self_exe, run_explore);
}

int matrix_main(const std::vector<std::string>& args, const std::string& self_exe) {
    return guarded("matrix", args, self_exe, run_matrix);
}

} // namespace ringsim::platform
