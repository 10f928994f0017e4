// `ringsim sweep`: load and check the spec and every point, take this shard's slice, skip
// what DIR already holds, run the rest through the process pool (each (point, replicate) a
// forked `ringsim run` of its own), append a line per finished one, and, once the whole
// sweep is in DIR, print the table and the target's answer. `ringsim merge`: the same table
// from several directories or shards.
#include "platform/sweep/sweep_cmd.h"

#include "platform/arg_number.h"
#include "platform/commands.h"
#include "platform/runner/process_pool.h"
#include "platform/runner/ringsim_child.h"
#include "platform/sweep/points.h"
#include "platform/sweep/results.h"
#include "platform/sweep/spec.h"
#include "platform/sweep/steady.h"
#include "platform/sweep/table.h"

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace ringsim::platform {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using nlohmann::json;
using namespace sweep;

namespace {

constexpr double kDefaultTimeout = 3600;

int bad_args(const std::string& cmd, const std::string& why) {
    return bad_usage(cmd, why);
}

struct Shard {
    uint64_t index = 0, count = 1;
};

// --shard I/N, or Slurm's array variables; an error message when either is malformed.
std::optional<std::string> choose_shard(const std::string& flag, Shard& shard) {
    if (!flag.empty()) {
        const size_t slash = flag.find('/');
        const auto n = slash == std::string::npos
                           ? std::nullopt
                           : parse_whole_number(flag.substr(slash + 1), 1, 1000000);
        const auto i = n ? parse_whole_number(flag.substr(0, slash), 0, *n - 1) : std::nullopt;
        if (!i) return "--shard: expected I/N with 0 <= I < N, found '" + flag + "'";
        shard = {*i, *n};
        return std::nullopt;
    }
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!id) return std::nullopt;
    const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
    const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
    const auto n = count ? parse_whole_number(count, 1, 1000000) : std::nullopt;
    if (!n)
        return std::string("SLURM_ARRAY_TASK_ID is set, but SLURM_ARRAY_TASK_COUNT is ") +
               (count ? "'" + std::string(count) + "', not a whole number from 1" : "not set");
    const auto lo = parse_whole_number(min ? min : "0", 0, UINT32_MAX);
    const auto task = parse_whole_number(id, 0, UINT32_MAX);
    if (!lo || !task || *task < *lo || *task - *lo >= *n)
        return "SLURM_ARRAY_TASK_ID=" + std::string(id) +
               " is not within SLURM_ARRAY_TASK_MIN=" + (min ? min : "0") + " and the " +
               std::to_string(*n) +
               " tasks of SLURM_ARRAY_TASK_COUNT (an array must be contiguous, e.g. --array=0-3)";
    shard = {*task - *lo, *n};
    return std::nullopt;
}

void print_errors(const std::string& file, const std::vector<config::ConfigError>& errors) {
    for (const auto& e : errors)
        std::cerr << "ringsim: error: " << file << ": " << e.message() << "\n";
    std::cerr << "ringsim: " << errors.size() << " error(s) in " << file << "\n";
}

// What a failed child said: its stderr, trimmed and cut short.
std::string child_said(std::string said) {
    while (!said.empty() && (said.back() == '\n' || said.back() == ' '))
        said.pop_back();
    if (said.size() > 2000) said = "..." + said.substr(said.size() - 2000);
    return said;
}

std::string eta_text(double seconds) {
    if (!std::isfinite(seconds)) return "?";
    std::ostringstream o;
    if (seconds < 90)
        o << long(std::lround(seconds)) << " s";
    else if (seconds < 5400)
        o << long(std::lround(seconds / 60)) << " min";
    else
        o << std::fixed << std::setprecision(1) << seconds / 3600 << " h";
    return o.str();
}

struct SweepArgs {
    std::string spec;
    std::string out;
    std::vector<std::string> sets;
    unsigned jobs = 1;
    std::string shard;
    double timeout = kDefaultTimeout;
    bool force = false, list = false, retry_failed = false;
};

std::optional<int> parse_sweep_args(const std::vector<std::string>& args, SweepArgs& a) {
    po::options_description opts;
    opts.add_options()("spec", po::value<std::string>(&a.spec))("out",
                                                                po::value<std::string>(&a.out))(
        "jobs", po::value<std::string>())("shard", po::value<std::string>(&a.shard))(
        "set", po::value<std::vector<std::string>>(&a.sets)->composing())(
        "timeout", po::value<std::string>())("force", po::bool_switch(&a.force))(
        "list", po::bool_switch(&a.list))("retry-failed", po::bool_switch(&a.retry_failed));
    po::positional_options_description pos;
    pos.add("spec", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return bad_args("sweep", e.what());
    }
    if (a.spec.empty()) return bad_args("sweep", "expected a SPEC file");
    if (!a.list && a.out.empty()) return bad_args("sweep", "--out DIR is required");
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a.jobs = cpus > 0 ? unsigned(cpus) : 1;
    if (vm.count("jobs")) {
        const auto jobs = parse_whole_number(vm["jobs"].as<std::string>(), 1, 4096);
        if (!jobs)
            return bad_args("sweep", "--jobs: expected a whole number from 1 to 4096, found '" +
                                         vm["jobs"].as<std::string>() + "'");
        a.jobs = unsigned(*jobs);
    }
    if (vm.count("timeout")) {
        const std::string t = vm["timeout"].as<std::string>();
        char* end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (t.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e7)
            return bad_args("sweep",
                            "--timeout: expected seconds from 0 (no limit) to 10000000, found '" +
                                t + "'");
        a.timeout = v;
    }
    return std::nullopt;
}

// The (point, replicate) pairs DIR already holds a line for: completed, or failed (a
// failed one is redone with --retry-failed).
struct DoneItems {
    std::set<uint64_t> ok, failed; // a pair in ok is not in failed
};

DoneItems done_items(const ResultLines& lines, const Plan& plan) {
    std::map<std::string, size_t> index;
    for (const Point& p : plan.points)
        index.emplace(p.id, p.index);
    DoneItems done;
    for (const json& line : lines.lines) {
        const auto it = index.find(line.value("point", ""));
        const uint64_t r = line.value("replicate", uint64_t(0));
        if (it == index.end() || r >= plan.replicates) continue;
        const uint64_t k = it->second * plan.replicates + r;
        if (line.value("status", "") == "ok")
            done.ok.insert(k), done.failed.erase(k);
        else if (!done.ok.count(k))
            done.failed.insert(k);
    }
    return done;
}

class Progress {
public:
    Progress(uint64_t total, uint64_t done_before)
        : m_total(total), m_done(done_before), m_tty(isatty(STDERR_FILENO)),
          m_start(std::chrono::steady_clock::now()) {}
    void finished(const Point& p, uint64_t replicate, bool ok, const std::string& why) {
        ++m_done, ++m_now;
        if (!ok) ++m_failed;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        const double rate = elapsed > 0 ? double(m_now) / elapsed : 0;
        std::ostringstream line;
        line << "ringsim sweep: " << m_done << "/" << m_total << " done, " << m_failed
             << " failed, " << std::fixed << std::setprecision(1) << rate << " points/s, ETA "
             << eta_text(rate > 0 ? double(m_total - m_done) / rate : NAN);
        if (m_tty) {
            std::cerr << "\r" << line.str() << "\033[K" << std::flush;
        } else {
            // One write a line (std::cerr is unbuffered: one per piece otherwise).
            line << " (point " << p.id << " replicate " << replicate << ": " << (ok ? "ok" : why)
                 << ")\n";
            std::cerr << line.str() << std::flush;
        }
    }
    void end() {
        if (m_tty && m_now) std::cerr << "\n";
    }
    uint64_t failed() const { return m_failed; }

private:
    uint64_t m_total, m_done, m_now = 0, m_failed = 0;
    bool m_tty;
    std::chrono::steady_clock::time_point m_start;
};

// The table and the answer, when DIR holds every (point, replicate) of the sweep.
void summarise_dir(const fs::path& dir, const json& sweep_doc, const ResultLines& lines) {
    std::string error;
    const auto info = parse_sweep_json(sweep_doc, error);
    if (!info) return;
    const Table t = build_table(*info, lines.lines);
    if (t.missing) {
        std::cout << "ringsim sweep: " << t.missing << " (point, replicate) pairs of the sweep "
                  << "are not in " << dir.string()
                  << " yet (other shards); once they are: ringsim merge " << dir.string() << "\n";
        return;
    }
    std::cout << "\n";
    print_table(std::cout, *info, t);
    if (!info->target) return;
    const Answer a = answer(*info, t);
    print_answer(std::cout, *info, a);
    // Shards finishing together on a shared DIR may both write it: whole files, renamed.
    const fs::path tmp = dir / (".answer.csv." + unique_suffix());
    std::ofstream out(tmp);
    out << answer_csv(*info, a);
    out.close();
    std::error_code ec;
    if (out) fs::rename(tmp, dir / "answer.csv", ec);
    if (!out || ec) fs::remove(tmp, ec), ec = std::make_error_code(std::errc::io_error);
    if (ec)
        std::cerr << "ringsim sweep: cannot write " << (dir / "answer.csv").string() << "\n";
    else
        std::cout << "ringsim sweep: wrote " << (dir / "answer.csv").string() << "\n";
}

int run_sweep(const SweepArgs& a) {
    Shard shard;
    if (auto why = choose_shard(a.shard, shard)) return bad_args("sweep", *why);
    const SpecLoad spec = load_sweep_spec(a.spec, a.sets);
    if (!spec.spec) {
        print_errors(a.spec, spec.errors);
        return kExitBadInput;
    }
    const PlanLoad planned = plan_sweep(*spec.spec);
    if (!planned.plan) {
        print_errors(a.spec, planned.errors);
        return kExitBadInput;
    }
    const Plan& plan = *planned.plan;
    if (a.list) {
        for (const Point& p : plan.points) {
            std::cout << p.id;
            for (const std::string& s : p.sets)
                std::cout << "\t" << s;
            std::cout << "\n";
        }
        std::cerr << "ringsim sweep: " << plan.points.size() << " points x " << plan.replicates
                  << " replicates\n";
        return kExitOk;
    }

    const fs::path dir = a.out;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        return bad_args("sweep", "--out: cannot create the directory " + a.out);
    const json sweep_doc = sweep_json(*spec.spec, plan);
    if (const auto old = runner::read_json(dir / "sweep.json")) {
        const std::string old_hash = old->value("spec_hash", "");
        if (old_hash != plan.spec_hash) {
            if (!a.force)
                return bad_args("sweep", a.out + " holds the results of another sweep (spec hash " +
                                             old_hash + "; this one is " + plan.spec_hash +
                                             "): use another --out, or --force to delete them");
            for (const auto& e : fs::directory_iterator(dir, ec))
                if (e.path().filename().string().rfind("points-", 0) == 0 ||
                    e.path().filename() == "answer.csv")
                    fs::remove(e.path(), ec);
        }
    }
    if (!write_json_atomically(dir / "sweep.json", sweep_doc))
        return bad_args("sweep", "cannot write " + (dir / "sweep.json").string());

    const fs::path results = dir / shard_file_name(shard.index, shard.count);
    const ResultLines mine = read_result_file(results, true);
    if (!mine.error.empty()) return bad_args("sweep", mine.error);
    const ResultLines before = read_result_dir(dir);
    if (!before.error.empty()) return bad_args("sweep", before.error);
    const DoneItems done = done_items(before, plan);

    std::vector<uint64_t> todo;
    uint64_t slice = 0, failed_before = 0;
    for (uint64_t k = shard.index; k < plan.items(); k += shard.count) {
        ++slice;
        const bool failed = done.failed.count(k) != 0;
        if (failed && !a.retry_failed) ++failed_before;
        if (!done.ok.count(k) && (!failed || a.retry_failed)) todo.push_back(k);
    }
    std::cerr << "ringsim sweep: " << a.spec << ": " << plan.points.size() << " points x "
              << plan.replicates << " replicates; shard " << shard.index << "/" << shard.count
              << ": " << slice << ", " << slice - todo.size() << " already done, " << todo.size()
              << " to run on " << a.jobs << " job(s)\n";

    const int fd = open(results.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return bad_args("sweep", "cannot write " + results.string());
    const fs::path work =
        dir / (".work-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count));
    fs::remove_all(work, ec);

    const SweepSpec& s = *spec.spec;
    Progress progress(slice, slice - todo.size());
    bool write_failed = false;
    const auto point_of = [&](size_t i) -> const Point& {
        return plan.points[todo[i] / plan.replicates];
    };
    const auto replicate_of = [&](size_t i) { return todo[i] % plan.replicates; };
    const auto seed_of = [&](size_t i) {
        return replicate_seed(s.seed, point_of(i).id, replicate_of(i));
    };
    const auto make_job = [&](size_t i) {
        const fs::path run_dir = work / std::to_string(todo[i]);
        // Its stats (handed back by its worker) and series.csv are all on_done reads of a
        // point.
        std::vector<std::string> args = {s.scenario, "--seed", std::to_string(seed_of(i)), "--out",
                                         run_dir.string()};
        for (const auto* sets : {&s.sets, &point_of(i).sets})
            for (const std::string& set : *sets)
                args.insert(args.end(), {"--set", set});
        if (s.series) args.insert(args.end(), {"--series", s.series->interval});
        // No directory for the job: its stderr comes back in memory, and the run makes --out
        // only for series.csv.
        return runner::ringsim_stats_job(std::move(args), {}, a.timeout, plan.scenario_texts);
    };
    const auto on_done = [&](size_t i, const runner::ChildStatus& status) {
        const Point& p = point_of(i);
        const fs::path run_dir = work / std::to_string(todo[i]);
        json line = {{"point", p.id},
                     {"axes", p.axes},
                     {"replicate", replicate_of(i)},
                     {"seed", seed_of(i)},
                     {"status", "ok"},
                     {"reason", nullptr},
                     {"exit_status", status.describe()},
                     {"wall_s", status.wall_s}};
        std::optional<json> stats;
        if (status.ok()) {
            json parsed = json::parse(status.answer, nullptr, false);
            if (parsed.is_object()) stats = std::move(parsed);
        }
        std::string series_error;
        std::optional<json> steady;
        if (stats && s.series)
            steady = steady_figures(run_dir / "series.csv", s.series->interval_ps,
                                    s.series->warmup_ps, p.duration_ps, series_error);
        if (stats && s.series && !steady) {
            line["status"] = "failed";
            line["reason"] = series_error;
        } else if (stats) {
            line["stats"] = std::move(*stats);
            if (steady) line["steady"] = std::move(*steady);
        } else {
            const std::string said = child_said(status.said);
            line["status"] = "failed";
            line["reason"] = status.ok() ? "its statistics missing or not JSON"
                                         : status.describe() + (said.empty() ? "" : ": " + said);
        }
        if (!append_line(fd, line)) write_failed = true;
        if (s.series) fs::remove_all(run_dir, ec);
        progress.finished(p, replicate_of(i), line["status"] == "ok",
                          line["reason"].is_string() ? line["reason"].get<std::string>() : "");
        return !write_failed;
    };
    const runner::PoolEnd end = runner::run_pool(todo.size(), a.jobs, make_job, on_done);
    progress.end();
    close(fd);
    fs::remove_all(work, ec);
    if (write_failed) {
        std::cerr << "ringsim sweep: cannot write " << results.string() << "\n";
        return kExitBadInput;
    }
    if (end == runner::PoolEnd::interrupted) {
        std::cerr << "ringsim sweep: interrupted; rerun the same command to resume\n";
        return kExitInterrupted;
    }
    const uint64_t failed = failed_before + progress.failed();
    std::cout << "ringsim sweep: shard " << shard.index << "/" << shard.count << ": " << slice
              << " runs, " << failed << " failed; results in " << results.string() << "\n";
    const ResultLines all = read_result_dir(dir);
    if (all.error.empty()) summarise_dir(dir, sweep_doc, all);
    return failed ? kExitModelError : kExitOk;
}

} // namespace

int sweep_main(const std::vector<std::string>& args) {
    SweepArgs a;
    if (auto code = parse_sweep_args(args, a)) return *code;
    return run_sweep(a);
}

int merge_main(const std::vector<std::string>& args) {
    std::vector<std::string> dirs;
    std::string csv, json_file, answer_file;
    po::options_description opts;
    opts.add_options()("dir", po::value<std::vector<std::string>>(&dirs)->composing())(
        "csv", po::value<std::string>(&csv))("json", po::value<std::string>(&json_file))(
        "answer", po::value<std::string>(&answer_file));
    po::positional_options_description pos;
    pos.add("dir", -1);
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return bad_args("merge", e.what());
    }
    if (dirs.empty()) return bad_args("merge", "expected at least one DIR");
    std::optional<SweepInfo> info;
    std::string first_dir;
    std::vector<json> lines;
    for (const std::string& d : dirs) {
        const auto doc = runner::read_json(fs::path(d) / "sweep.json");
        if (!doc) return bad_args("merge", d + " holds no sweep (no readable sweep.json)");
        std::string error;
        auto this_info = parse_sweep_json(*doc, error);
        if (!this_info) return bad_args("merge", d + "/sweep.json: " + error);
        if (info && this_info->spec_hash != info->spec_hash)
            return bad_args("merge", d + " holds another sweep than " + first_dir + " (spec hash " +
                                         this_info->spec_hash + ", not " + info->spec_hash + ")");
        if (!info) info = std::move(this_info), first_dir = d;
        ResultLines r = read_result_dir(d);
        if (!r.error.empty()) return bad_args("merge", r.error);
        for (json& j : r.lines)
            lines.push_back(std::move(j));
    }
    const Table t = build_table(*info, lines);
    print_table(std::cout, *info, t);
    const auto write = [&](const std::string& file, const std::string& text) {
        std::ofstream out(file);
        out << text;
        if (out) return true;
        std::cerr << "ringsim merge: cannot write " << file << "\n";
        return false;
    };
    if (!csv.empty() && !write(csv, table_csv(*info, t))) return kExitBadInput;
    if (!json_file.empty() && !write(json_file, table_json(*info, t).dump(2) + "\n"))
        return kExitBadInput;
    if (info->target) {
        const Answer a = answer(*info, t);
        print_answer(std::cout, *info, a);
        if (!answer_file.empty() && !write(answer_file, answer_csv(*info, a))) return kExitBadInput;
    } else if (!answer_file.empty()) {
        return bad_args("merge", "--answer: this sweep has no target");
    }
    if (t.missing)
        std::cerr << "ringsim merge: " << t.missing
                  << " (point, replicate) pairs have no result: a shard has not run or finished\n";
    return kExitOk;
}

} // namespace ringsim::platform
