#include "platform/cli.h"

#include "models/common/types.h"
#include "platform/builder.h"
#include "platform/commands.h"
#include "platform/config/loader.h"
#include "platform/config/params.h"
#include "platform/config/units.h"
#include "platform/estimate.h"
#include "platform/explore.h"
#include "platform/lessons.h"
#include "platform/litmus/litmus.h"
#include "platform/output.h"
#include "platform/run_loop.h"
#include "platform/series.h"
#include "platform/sweep/sweep_cmd.h"
#include "platform/timeline.h"
#include "platform/vcd.h"

#include <boost/program_options.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <systemc>
#include <unistd.h>

#ifndef RINGSIM_VERSION
#define RINGSIM_VERSION "unknown"
#endif

namespace ringsim::platform {

namespace po = boost::program_options;

namespace {

struct Args {
    std::string scenario;
    std::vector<std::string> sets;
    std::optional<uint64_t> seed;
    std::string out = "ringsim-out";
    std::string timeline;              // --timeline FILE
    std::string timeline_window;       // --timeline-window FROM:TO
    std::string vcd;                   // --vcd FILE
    std::string vcd_window;            // --vcd-window FROM:TO
    std::optional<std::string> series; // --series INTERVAL
    std::string perf_data;             // --perf-data FILE
    bool progress = false;             // --progress: a progress line even off a terminal
    bool stats_only = false;           // --stats-only: no run.json, no violations.json
    std::string* stats_text = nullptr; // run_cli_stats(): stats.json's text instead of its file
    // run_cli_stats(): the scenario's text and its histogram files' texts, read once by the
    // caller; `scenario` is still its name and the directory its histogram files were read
    // from (a file not among the texts is read from there).
    const config::ScenarioTexts* scenario_texts = nullptr;
    std::string max_memory;        // --max-memory SIZE (default: 80% of physical memory)
    std::vector<std::string> argv; // as typed, for perf.data's CMDLINE
};

// The flags of `validate` (with_run false) and `run`, bound to `a`: one table for the
// parser and for run_flags(), which a test holds against the usage text.
po::options_description options_for(bool with_run, Args& a) {
    po::options_description opts;
    opts.add_options()("set", po::value<std::vector<std::string>>(&a.sets)->composing(),
                       "override a scenario key")("scenario", po::value<std::string>(&a.scenario))(
        "max-memory", po::value<std::string>(&a.max_memory), "memory a run may need at most");
    if (with_run)
        opts.add_options()("seed", po::value<uint64_t>(), "master seed")(
            "out", po::value<std::string>(&a.out), "output directory")(
            "timeline", po::value<std::string>(&a.timeline), "trace-event JSON file")(
            "timeline-window", po::value<std::string>(&a.timeline_window),
            "FROM:TO")("vcd", po::value<std::string>(&a.vcd), "value change dump file")(
            "vcd-window", po::value<std::string>(&a.vcd_window),
            "FROM:TO")("series", po::value<std::string>(), "series.csv interval")(
            "perf-data", po::value<std::string>(&a.perf_data), "perf.data file to write")(
            "progress", po::bool_switch(&a.progress), "progress lines on stderr")(
            "stats-only", po::bool_switch(&a.stats_only), "write stats.json alone");
    return opts;
}

// Parses the arguments after the command; false (after saying why) on a bad flag.
bool parse_args(const std::string& cmd, const std::vector<std::string>& argv, bool with_run,
                Args& a) {
    const po::options_description opts = options_for(with_run, a);
    po::positional_options_description pos;
    pos.add("scenario", 1);
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(argv).options(opts).positional(pos).run(), vm);
        po::notify(vm);
        if (vm.count("seed")) a.seed = vm["seed"].as<uint64_t>();
        if (vm.count("series")) a.series = vm["series"].as<std::string>();
    } catch (const po::error& e) {
        bad_usage(cmd, e.what());
        return false;
    }
    if (a.scenario.empty()) {
        bad_usage(cmd, "expected a SCENARIO file");
        return false;
    }
    return true;
}

// `ringsim CMD ARGS...` (run or validate) parsed, with the command line kept as typed; empty
// (after saying why) on a bad flag.
std::optional<Args> command_args(const std::string& cmd, const std::vector<std::string>& args) {
    std::optional<Args> a(std::in_place);
    if (!parse_args(cmd, args, cmd == "run", *a)) return std::nullopt;
    a->argv = {"ringsim", cmd};
    a->argv.insert(a->argv.end(), args.begin(), args.end());
    return a;
}

// --max-memory, or its default; empty optional (after saying why) when malformed.
std::optional<uint64_t> max_memory(const std::string& cmd, const Args& a) {
    if (a.max_memory.empty()) return default_max_memory();
    const auto size = config::parse_size(a.max_memory);
    if (size && *size.value > 0) return *size.value;
    std::cerr << "ringsim " << cmd << ": --max-memory: expected "
              << (size ? "a size > 0" : size.error) << ", found '" << a.max_memory << "'\n";
    return std::nullopt;
}

// Loads the scenario and weighs it: an empty optional (after saying why) when it is bad or
// would need more than `limit` of memory.
std::optional<config::Scenario> load(const Args& a, uint64_t limit, nlohmann::json& effective,
                                     ResourceEstimate& estimate) {
    auto r = a.scenario_texts
                 ? config::load_scenario_json(a.scenario_texts->scenario, a.sets, a.seed,
                                              a.scenario, &a.scenario_texts->histograms)
                 : config::load_scenario_file(a.scenario, a.sets, a.seed);
    for (const auto& e : r.errors)
        std::cerr << "ringsim: error: " << a.scenario << ": " << e.message() << "\n";
    if (!r.errors.empty())
        std::cerr << "ringsim: " << r.errors.size() << " error(s) in " << a.scenario << "\n";
    effective = std::move(r.effective);
    if (!r.scenario) return std::nullopt;
    estimate = estimate_resources(*r.scenario);
    if (estimate.bytes > limit) {
        std::cerr << "ringsim: error: " << a.scenario << ": expected a run that needs at most "
                  << bytes_text(limit) << " of memory (--max-memory), found one that may need "
                  << bytes_text(estimate.bytes) << ":" << parts_text(estimate)
                  << "\nringsim: lower the keys of the largest parts, or raise --max-memory\n";
        return std::nullopt;
    }
    return r.scenario;
}

// Writes `j` to a temporary file beside `file` and renames it into place, so that a full
// disk or a kill never leaves a truncated file under the real name. "" or why it failed.
std::string write_json(const std::filesystem::path& file, const nlohmann::json& j) {
    const std::filesystem::path tmp =
        file.parent_path() / ("." + file.filename().string() + ".tmp-" + std::to_string(getpid()));
    {
        std::ofstream f(tmp);
        f << j.dump(2) << "\n";
        f.flush();
        if (!f) {
            const std::string why = std::strerror(errno);
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            return "cannot write " + tmp.string() + ": " + why;
        }
    }
    if (std::rename(tmp.c_str(), file.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        return "cannot rename " + tmp.string() + " to " + file.string() + ": " + why;
    }
    return "";
}

// The files `ringsim run` writes in its output directory.
const char* const kRunOutputs[] = {"stats.json", "run.json", "violations.json", "series.csv"};

// Before simulating: the output directory exists and takes a new file (so a long run does not
// end unable to write its result), and no output of an earlier run is left in it to be taken
// for this run's. "" or why not.
std::string prepare_output_dir(const std::string& out) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) return "cannot create output directory " + out + ": " + ec.message();
    std::string probe = (std::filesystem::path(out) / ".ringsim-probe-XXXXXX").string();
    const int fd = mkstemp(probe.data());
    if (fd < 0) return "cannot write into " + out + ": " + std::strerror(errno);
    close(fd);
    std::filesystem::remove(probe, ec);
    for (const char* name : kRunOutputs) {
        std::filesystem::remove(std::filesystem::path(out) / name, ec);
        if (ec)
            return "cannot remove the earlier " + (std::filesystem::path(out) / name).string() +
                   ": " + ec.message();
    }
    return "";
}

// --timeline-window or --vcd-window (`flag`, with `text`), for the file of `file_flag`,
// checked before the run; empty optional (after saying why) when bad.
std::optional<TimelineWindow> window_of(const std::string& flag, const std::string& text,
                                        const std::string& file_flag, const std::string& file) {
    if (text.empty()) return TimelineWindow{};
    std::string error = "needs --" + file_flag + " FILE";
    if (!file.empty())
        if (auto w = parse_timeline_window(text, error)) return w;
    std::cerr << "ringsim run: --" << flag << ": " << error << "\n";
    return std::nullopt;
}

// --series INTERVAL, checked before the run: 0 when absent; empty optional (after saying
// why) when bad.
std::optional<models::Picos> series_interval(const Args& a) {
    if (!a.series) return models::Picos(0);
    const auto t = config::parse_time(*a.series);
    if (t && *t.value > 0) return *t.value;
    std::cerr << "ringsim run: --series: expected " << (t ? "a time > 0" : t.error) << ", found '"
              << *a.series << "'\n";
    return std::nullopt;
}

// A waveform writer's listeners on the platform (the engine, the consumer, the wake-ups, the
// sinks), attached for the run and detached when this goes: the platform outlives the writer.
class VcdAttachment {
public:
    VcdAttachment(Platform& top, VcdWriter& w) : m_top(top), m_w(w) {
        m_top.engine().add_observer(&m_w);
        m_top.add_consumer_observer(&m_w);
        for (unsigned i = 0; i < m_top.buffers().size(); ++i)
            m_top.buffers()[i].wakeup->set_listener([w = &m_w, i] { w->on_wakeup(i); });
        for (unsigned i = 0; i < m_top.sinks().size(); ++i) {
            const models::coresight::EtrSink* sink = m_top.sinks()[i].get();
            m_top.sinks()[i]->set_listener([w = &m_w, i, sink](models::Picos t) {
                w->on_sink(i, t, sink->hw().rwp(t), sink->hw().sts(t));
            });
        }
    }
    ~VcdAttachment() {
        m_top.engine().remove_observer(&m_w);
        m_top.remove_consumer_observer(&m_w);
        for (const BufferSlot& b : m_top.buffers())
            b.wakeup->set_listener({});
        for (const auto& sink : m_top.sinks())
            sink->set_listener({});
    }
    VcdAttachment(const VcdAttachment&) = delete;
    VcdAttachment& operator=(const VcdAttachment&) = delete;

private:
    Platform& m_top;
    VcdWriter& m_w;
};

int cmd_run(const Args& a) {
    const auto window = window_of("timeline-window", a.timeline_window, "timeline", a.timeline);
    if (!window) return kExitBadInput;
    const auto wave_window = window_of("vcd-window", a.vcd_window, "vcd", a.vcd);
    if (!wave_window) return kExitBadInput;
    const auto series_every = series_interval(a);
    if (!series_every) return kExitBadInput;
    const auto limit = max_memory("run", a);
    if (!limit) return kExitBadInput;
    nlohmann::json effective;
    ResourceEstimate estimate;
    const auto scenario = load(a, *limit, effective, estimate);
    if (!scenario) return kExitBadInput;

    // Handed its stats as text (run_cli_stats), a run without --series writes nothing in --out.
    const bool writes_files = !a.stats_text || a.series;
    if (const std::string why = writes_files ? prepare_output_dir(a.out) : ""; !why.empty()) {
        std::cerr << "ringsim run: " << why << "\n";
        return kExitBadInput;
    }

    const auto wall0 = std::chrono::steady_clock::now();
    Platform top("top", *scenario);
    if (!a.perf_data.empty()) {
        if (const std::string why = perf_data_refusal(top.perf_data().session()); !why.empty()) {
            std::cerr << "ringsim run: --perf-data: " << why << "\n";
            return kExitBadInput;
        }
        top.perf_data().set_cmdline(a.argv);
        if (!top.perf_data().open(a.perf_data)) {
            std::cerr << "ringsim run: --perf-data: " << top.perf_data().error() << "\n";
            return kExitBadInput;
        }
    }
    // Only with --timeline does the engine get an observer: without, the run pays nothing.
    std::unique_ptr<TimelineWriter> timeline;
    if (!a.timeline.empty()) {
        timeline = std::make_unique<TimelineWriter>(
            a.timeline, *window, timeline_agents(top.engine()), timeline_buffers(top));
        if (!timeline->ok()) {
            std::cerr << "ringsim run: cannot write the timeline " << a.timeline << "\n";
            return kExitBadInput;
        }
        top.engine().add_observer(timeline.get());
        top.consumer_mmu().add_observer(timeline.get());
    }
    // Only with --vcd do the engine, the consumer, the wake-ups and the sinks get a listener.
    std::unique_ptr<VcdWriter> vcd;
    std::optional<VcdAttachment> vcd_attached; // detached before the writer goes, however
    if (!a.vcd.empty()) {
        vcd = std::make_unique<VcdWriter>(a.vcd, *wave_window, vcd_buffers(top),
                                          unsigned(top.sinks().size()));
        if (!vcd->ok()) {
            std::cerr << "ringsim run: cannot write the waveform " << a.vcd << "\n";
            return kExitBadInput;
        }
        vcd_attached.emplace(top, *vcd);
    }
    // Only with --series is there a sampler: one timed event per interval, reading state.
    std::ofstream series_file;
    std::unique_ptr<SeriesSampler> series;
    if (*series_every) {
        series_file.open(std::filesystem::path(a.out) / "series.csv");
        if (!series_file) {
            std::cerr << "ringsim run: cannot write " << a.out << "/series.csv\n";
            return kExitBadInput;
        }
        series = std::make_unique<SeriesSampler>("series", top, *series_every, series_file);
    }
    RunLoopOptions loop;
    loop.duration_ps = scenario->duration_ps;
    loop.terminal = isatty(STDERR_FILENO) == 1;
    if (a.progress || loop.terminal) loop.progress_out = &std::cerr;
    const RunLoopEnd end = run_simulation(loop);
    if (end.signal != 0) top.close_books_early();
    if (series) {
        series->finish();
        series_file.close();
        if (!series_file) {
            std::cerr << "ringsim run: cannot write " << a.out << "/series.csv\n";
            return kExitBadInput;
        }
    }
    if (timeline) {
        top.engine().remove_observer(timeline.get());
        top.consumer_mmu().remove_observer(timeline.get());
    }
    if (vcd) {
        vcd_attached.reset();
        if (!vcd->close(sc_core::sc_time_stamp().value())) {
            std::cerr << "ringsim run: cannot write the waveform " << a.vcd << "\n";
            return kExitBadInput;
        }
    }
    if (timeline && !timeline->close()) {
        std::cerr << "ringsim run: cannot write the timeline " << a.timeline << "\n";
        return kExitBadInput;
    }
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall0;

    RunInfo info;
    info.scenario_path = a.scenario;
    info.seed = scenario->seed;
    info.effective = effective;
    info.sim_time_ps = sc_core::sc_time_stamp().value();
    info.wall_seconds = wall.count();
    info.delta_cycles = sc_core::sc_delta_count();
    if (end.signal != 0) info.stopped_by = end.signal == SIGINT ? "SIGINT" : "SIGTERM";

    const std::filesystem::path dir(a.out);
    // --stats-only: what a sweep keeps of a point, without the files and the summary it
    // never reads (docs/performance.md, "Per-run cost").
    // Which files this run writes in its directory (an earlier run's were removed first).
    std::vector<std::string> outputs;
    if (!a.stats_text) outputs.push_back("stats.json");
    if (!a.stats_only) outputs.insert(outputs.end(), {"run.json", "violations.json"});
    if (series) outputs.push_back("series.csv");
    // run.json last: it lists the others as written.
    std::vector<std::pair<const char*, nlohmann::json>> files;
    if (a.stats_text)
        *a.stats_text = stats_json(top).dump();
    else
        files.emplace_back("stats.json", stats_json(top));
    if (!a.stats_only) {
        nlohmann::json run = run_json(top, info);
        run["outputs"] = outputs;
        files.emplace_back("violations.json", violations_json(top));
        files.emplace_back("run.json", std::move(run));
    }
    for (const auto& [name, j] : files)
        if (const std::string why = write_json(dir / name, j); !why.empty()) {
            std::cerr << "ringsim run: " << why << "\n";
            return kExitBadInput;
        }
    if (a.stats_only)
        print_warnings(std::cout, top, info);
    else
        print_summary(std::cout, top, info);
    if (!outputs.empty()) {
        std::cout << "ringsim: wrote ";
        for (size_t i = 0; i < outputs.size(); ++i)
            std::cout << (i == 0 ? "" : i + 1 == outputs.size() ? " and " : ", ") << outputs[i];
        std::cout << " in " << dir.string() << "\n";
    }
    if (timeline) std::cout << "ringsim: wrote the timeline " << a.timeline << "\n";
    if (vcd) {
        std::cout << "ringsim: wrote the waveform " << a.vcd << "\n";
        if (vcd->late_changes())
            std::cout << "ringsim: the waveform leaves out " << vcd->late_changes()
                      << " changes reported after it had passed their time\n";
    }
    if (!a.perf_data.empty()) {
        if (!top.perf_data().ok()) {
            std::cerr << "ringsim run: --perf-data: " << top.perf_data().error() << "\n";
            return kExitBadInput;
        }
        print_perf_data_written(std::cout, top.perf_data(), a.perf_data);
    }
    if (end.signal != 0) return 128 + end.signal; // 130 for SIGINT, 143 for SIGTERM
    return top.finished() ? kExitOk : kExitModelError;
}

// Wraps text at `width` columns, each line indented by `indent`.
std::string wrapped(const std::string& text, size_t width, const std::string& indent) {
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (!line.empty() && line.size() + 1 + w.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    if (!line.empty()) out += indent + line + "\n";
    return out;
}

// The violation kinds a run showed, data and AUX together, sorted.
std::vector<std::string> kinds_shown(const nlohmann::json& total) {
    std::set<std::string> kinds;
    auto add = [&kinds](const nlohmann::json& v) {
        for (const auto& [kind, n] : v.items())
            if (kind != "total" && n.is_number() && n.get<uint64_t>() > 0) kinds.insert(kind);
    };
    add(total.at("violations"));
    if (total.contains("aux")) add(total.at("aux").at("violations"));
    return {kinds.begin(), kinds.end()};
}

std::string kinds_text(const std::vector<std::string>& kinds) {
    if (kinds.empty()) return "no violation";
    std::string t;
    for (const std::string& k : kinds)
        t += (t.empty() ? "" : ", ") + k;
    return t;
}

// `ringsim lesson --list` and `ringsim lesson NAME [run's output flags]`.
int cmd_lesson(const std::vector<std::string>& rest) {
    if (rest.size() == 1 && rest[0] == "--list") {
        std::cout << "lesson                 seed  shows                 about\n";
        for (const Lesson& l : lessons()) {
            std::string about = nlohmann::json::parse(l.scenario).value("description", "");
            if (about.rfind("Lesson: ", 0) == 0) about = about.substr(8);
            const size_t stop = about.find(". ");
            if (stop != std::string::npos) about = about.substr(0, stop + 1);
            std::printf("%-22s %4llu  %-21s %s\n", l.name.c_str(),
                        static_cast<unsigned long long>(l.seed), kinds_text(l.kinds).c_str(),
                        about.c_str());
        }
        return kExitOk;
    }
    if (rest.empty() || rest[0].rfind("--", 0) == 0)
        return bad_usage("lesson", "expected a lesson's NAME or --list");
    const Lesson* lesson = find_lesson(rest[0]);
    if (!lesson) {
        std::cerr << "ringsim lesson: no lesson '" << rest[0]
                  << "' (ringsim lesson --list names them)\n";
        return kExitBadInput;
    }
    std::vector<std::string> flags(rest.begin() + 1, rest.end());
    flags.insert(flags.begin(), "LESSON");
    Args a;
    if (!parse_args("lesson", flags, true, a)) return kExitBadInput;
    if (!a.sets.empty() || a.seed) {
        std::cerr << "ringsim lesson: a lesson runs as written, with its own seed; for --set or "
                     "--seed run its file: ringsim run scenarios/teaching/"
                  << lesson->name << ".json ...\n";
        return kExitBadInput;
    }
    // The scenario, as built in, goes into the output directory: the run reads it there.
    std::error_code ec;
    std::filesystem::create_directories(a.out, ec);
    const std::filesystem::path file = std::filesystem::path(a.out) / (lesson->name + ".json");
    std::ofstream(file) << lesson->scenario;
    if (!std::filesystem::exists(file)) {
        std::cerr << "ringsim lesson: cannot write " << file.string() << "\n";
        return kExitBadInput;
    }
    a.scenario = file.string();
    a.seed = lesson->seed;
    a.argv = {"ringsim", "run", "scenarios/teaching/" + lesson->name + ".json", "--seed",
              std::to_string(lesson->seed)};
    const std::string about = nlohmann::json::parse(lesson->scenario).value("description", "");
    std::cout << "Lesson " << lesson->name << ": scenarios/teaching/" << lesson->name
              << ".json, seed " << lesson->seed << "\n\n"
              << wrapped(about, 90, "  ") << "\n"
              << "$ ringsim run scenarios/teaching/" << lesson->name << ".json --seed "
              << lesson->seed << "\n";
    const int status = cmd_run(a);
    if (status != kExitOk) return status;
    std::ifstream in(std::filesystem::path(a.out) / "stats.json");
    const nlohmann::json stats = nlohmann::json::parse(in, nullptr, false);
    if (stats.is_discarded()) {
        std::cerr << "ringsim lesson: cannot read " << a.out << "/stats.json\n";
        return kExitModelError;
    }
    const std::vector<std::string> shown = kinds_shown(stats.at("total"));
    std::cout << "\nThe lesson shows " << kinds_text(shown);
    if (shown == lesson->kinds) {
        std::cout << (shown.empty() ? ", as it should: nothing goes wrong here.\n"
                                    : ", as it should.\n");
    } else {
        std::cout << "; it should show " << kinds_text(lesson->kinds) << ".\n";
    }
    std::cout << "Its waveform: ringsim run scenarios/teaching/" << lesson->name << ".json --vcd "
              << lesson->name << ".vcd && gtkwave " << lesson->name << ".vcd scenarios/teaching/"
              << lesson->name << ".gtkw\n";
    return shown == lesson->kinds ? kExitOk : kExitModelError;
}

int cmd_validate(const Args& a) {
    const auto limit = max_memory("validate", a);
    if (!limit) return kExitBadInput;
    nlohmann::json effective;
    ResourceEstimate estimate;
    if (!load(a, *limit, effective, estimate)) return kExitBadInput;
    std::cout << "ringsim: " << a.scenario << " is valid\n"
              << "ringsim: " << estimate_text(estimate, *limit) << "\n";
    return kExitOk;
}

// The host ran out of memory (the estimate bounds what the models need; other tenants of the
// machine are not in it): say so and exit 3 at once. Unwinding a std::bad_alloc would run
// sc_module destructors that allocate in turn, and an exception escaping one of them during
// unwinding aborts the process (SIGABRT, 800 writers on 63 CPUs).
[[noreturn]] void out_of_host_memory() {
    static const char message[] = "ringsim: model error: out of host memory; `ringsim validate` "
                                  "estimates what a run needs, --max-memory refuses more\n";
    const ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(kExitModelError);
}

// `command`'s exit code; an exception escaping it is a model error: said, and exit 3.
int guarded(const std::function<int()>& command) {
    try {
        return command();
    } catch (const std::exception& e) { // models::ModelError among them
        std::cerr << "ringsim: model error: " << e.what() << "\n";
    }
    return kExitModelError;
}

} // namespace

std::vector<std::string> run_flags() {
    Args a;
    std::vector<std::string> out;
    const po::options_description opts = options_for(true, a);
    for (const auto& o : opts.options())
        if (o->long_name() != "scenario") out.push_back("--" + o->long_name());
    return out;
}

int run_cli(int argc, char** argv) {
    std::set_new_handler(out_of_host_memory);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << usage("");
        return kExitBadInput;
    }
    const std::string cmd = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    return guarded([&]() -> int {
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << usage("");
            return kExitOk;
        }
        if (cmd == "--version") {
            std::cout << "ringsim " << RINGSIM_VERSION << " (SystemC " << sc_core::sc_release()
                      << ")\n";
            return kExitOk;
        }
        if ((cmd == "params" || cmd == "stats") && !rest.empty()) {
            std::cerr << "ringsim " << cmd << ": takes no arguments, found '" << rest.front()
                      << "'\n";
            return kExitBadInput;
        }
        if (cmd == "params") {
            config::print_params(std::cout);
            return kExitOk;
        }
        if (cmd == "stats") {
            print_stat_defs(std::cout);
            return kExitOk;
        }
        // The commands that simulate refuse a bad switch of the run loop before anything else
        // (a sweep's points, an explore's runs and a lesson's output all come later).
        if (cmd == "run" || cmd == "lesson" || cmd == "sweep" || cmd == "explore" ||
            cmd == "matrix") {
            if (const std::string bad = bad_run_environment(); !bad.empty()) {
                std::cerr << "ringsim " << cmd << ": environment variable " << bad << "\n";
                return kExitBadInput;
            }
        }
        if (cmd == "litmus") return litmus_main(rest);
        if (cmd == "sweep") return sweep_main(rest);
        if (cmd == "merge") return merge_main(rest);
        if (cmd == "explore" || cmd == "matrix") // each run a forked child of this process
            return cmd == "explore" ? explore_main(rest, "") : matrix_main(rest, "");
        if (cmd == "lesson") return cmd_lesson(rest);
        if (cmd == "run" || cmd == "validate") {
            const auto a = command_args(cmd, rest);
            if (!a) return kExitBadInput;
            return cmd == "run" ? cmd_run(*a) : cmd_validate(*a);
        }
        std::cerr << "ringsim: unknown command '" << cmd << "'\n" << usage("");
        return kExitBadInput;
    });
}

int run_cli_stats(const std::vector<std::string>& args, std::string& stats,
                  const config::ScenarioTexts* scenario_texts) {
    std::set_new_handler(out_of_host_memory);
    return guarded([&]() -> int {
        auto a = command_args("run", args);
        if (!a) return kExitBadInput;
        a->stats_only = true; // the text replaces stats.json, and no other file is wanted
        a->stats_text = &stats;
        a->scenario_texts = scenario_texts;
        return cmd_run(*a);
    });
}

} // namespace ringsim::platform
