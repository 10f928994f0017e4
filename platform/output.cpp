#include "platform/output.h"

#include "models/common/time_text.h"
#include "platform/config/units.h"
#include "platform/stat_paths.h"

#include <sys/resource.h>

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#ifndef RINGSIM_VERSION
#define RINGSIM_VERSION "unknown"
#endif

namespace ringsim::platform {

using models::StatScope;
using models::StatValues;
using nlohmann::json;

namespace {

// "records.produced" -> obj["records"]["produced"].
template <class V> void put_path(json& obj, const std::string& dotted, V value) {
    json* node = &obj;
    size_t from = 0;
    for (size_t dot; (dot = dotted.find('.', from)) != std::string::npos; from = dot + 1)
        node = &(*node)[dotted.substr(from, dot - from)];
    (*node)[dotted.substr(from)] = value;
}

json stats_object(const StatValues& v) {
    json obj = json::object();
    for (const models::StatValue& x : v.all()) {
        if (x.decl->ratio())
            put_path(obj, x.decl->path, x.fraction);
        else
            put_path(obj, x.decl->path, x.count);
    }
    return obj;
}

StatValues total_values(const Platform& p) {
    return StatValues(stat_registry(), p.total_stat_instances(), StatScope::total);
}

StatValues buffer_values(const Platform& p, unsigned i) {
    return StatValues(stat_registry(), p.buffer_stat_instances(i), StatScope::buffer);
}

// AUX violations, 0 without an AUX area; the total's violations.total counts them too.
uint64_t aux_violations(const StatValues& t) {
    return t.has("aux.violations.total") ? t.count("aux.violations.total") : 0;
}
uint64_t data_violations(const StatValues& t) {
    return t.count("violations.total") - aux_violations(t);
}

} // namespace

json stats_json(const Platform& p) {
    json out;
    out["total"] = stats_object(total_values(p));
    json buffers = json::array();
    for (unsigned i = 0; i < p.buffers().size(); ++i) {
        json obj = stats_object(buffer_values(p, i));
        obj["name"] = p.buffers()[i].name;
        obj["cpu"] = p.buffers()[i].cpu;
        buffers.push_back(std::move(obj));
    }
    out["buffers"] = std::move(buffers);
    return out;
}

json run_json(const Platform& p, const RunInfo& info) {
    const StatValues t = total_values(p);
    json out;
    out["ringsim_version"] = RINGSIM_VERSION;
    out["scenario"] = info.scenario_path;
    out["seed"] = info.seed;
    out["simulated_time_ps"] = info.sim_time_ps;
    out["simulated_seconds"] = double(info.sim_time_ps) * 1e-12;
    out["wall_seconds"] = info.wall_seconds;
    out["delta_cycles"] = info.delta_cycles;
    out["events_per_second"] =
        info.wall_seconds > 0 ? double(info.delta_cycles) / info.wall_seconds : 0.0;
    out["records_per_second"] =
        info.wall_seconds > 0 ? double(t.count("records.produced")) / info.wall_seconds : 0.0;
    out["data_lost"] =
        t.count("records.lost") + t.count("records.overwritten") + t.count("records.unread") > 0;
    out["violations"] = t.count("violations.total");
    if (p.aux_enabled())
        out["aux_data_lost"] = t.count("aux.bytes.lost") + t.count("aux.bytes.unread") +
                                   t.count("aux.bytes.corrupted") >
                               0;
    out["completed"] = p.finished();
    if (!info.stopped_by.empty()) out["stopped_by"] = info.stopped_by;
    // The host memory the process held at its peak, so far (getrusage: KiB on Linux). The
    // simulated buffers count only for the pages the run touched (models/memory/anon_bytes.h).
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    out["peak_rss_bytes"] = uint64_t(ru.ru_maxrss) * 1024;
    // What perf report will print about the perf.data of this run (--perf-data writes it).
    const PerfReportLines lines = perf_report_lines(p.perf_data());
    out["perf_report"] = {
        {"errors", lines.errors}, {"warnings", lines.warnings}, {"after", lines.after}};
    out["effective_config"] = info.effective;
    return out;
}

// What perf report --no-itrace prints about this perf.data (perf report's default also
// decodes the AUX trace and counts the samples it synthesizes from it among its events,
// which ringsim does not model): first what its cs-etm decoder says while
// queueing the AUX data (cs_etm_queue.h), then perf_session__warn_about_errors (session.c,
// C9), its warnings in its order and words. perf.data holds what the writer
// (export/perf_data_writer.h) puts there: the records perf record copied (twice, for those
// perf_mmap__push copied twice), its own FINISHED_ROUND, AUXTRACE_INFO and AUXTRACE, and
// one PERF_RECORD_LOST_SAMPLES per event that lost records (record__read_lost_samples).
PerfReportLines perf_report_lines(const PerfDataWriter& file) {
    const PerfDataCounts& n = file.counts();
    const perf_data::CsEtmQueueing& cs_etm = file.cs_etm_queueing();
    auto count = [&n](uint32_t type) { return n.by_type[type]; };
    PerfReportLines out;
    // cs-etm's complaints come first: it queues the AUX data when it meets AUXTRACE_INFO.
    out.errors = cs_etm.errors;
    if (cs_etm.piped_fallback && count(models::perf::kRecordAuxtrace))
        out.errors.insert(out.errors.end(), std::begin(perf_data::kCsEtmPipedWarning),
                          std::end(perf_data::kCsEtmPipedWarning));
    // A copy no walk of headers can split (a reordering corrupted it): perf report's reader
    // fails on it, and report says so after its warnings (which then count only what it
    // read before).
    if (n.unparsed_bytes) out.errors.push_back("failed to process sample");
    std::vector<std::string>& w = out.warnings;
    // perf_session__warn_about_errors, from what the file holds: nr_events[0] counts every
    // record, perf's own (FINISHED_ROUND, AUXTRACE, LOST_SAMPLES, ...) included.
    if (count(PERF_RECORD_LOST)) {
        w.push_back("Processed " + std::to_string(n.events) + " events and lost " +
                    std::to_string(count(PERF_RECORD_LOST)) + " chunks!");
        w.push_back("Check IO/CPU overload!");
    }
    // total_lost_samples: the lost fields of the LOST_SAMPLES records, every record the
    // kernel dropped (event->lost_samples grows with rb->lost).
    const uint64_t samples = count(PERF_RECORD_SAMPLE), lost = n.lost_samples;
    const double drop_rate = lost ? double(lost) / double(samples + lost) : 0.0;
    if (drop_rate > 0.05) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%3.2f", drop_rate * 100.0);
        w.push_back("Processed " + std::to_string(samples + lost) + " samples and lost " + pct +
                    "%!");
    }
    const std::string of_aux = " times out of " + std::to_string(count(PERF_RECORD_AUX)) + "!";
    if (n.aux_truncated) w.push_back("AUX data lost " + std::to_string(n.aux_truncated) + of_aux);
    if (n.aux_partial) {
        w.push_back("AUX data had gaps in it " + std::to_string(n.aux_partial) + of_aux);
        w.push_back("Are you running a KVM guest in the background?");
    }
    if (n.aux_collision)
        w.push_back("AUX data detected collision  " + std::to_string(n.aux_collision) + of_aux);
    // perf_session__warn_order: not when an event writes backward.
    if (n.unordered && !n.write_backward)
        w.push_back(std::to_string(n.unordered) + " out of order events recorded.");
    // __cmd_report, after the warnings: no sample, no histogram entry.
    if (!count(PERF_RECORD_SAMPLE) && !n.unparsed_bytes)
        out.after.push_back("The " + file.path() + " data has no samples!");
    return out;
}

namespace {

// The summary's lines of it: a long run of cs-etm errors is cut short (run.json has all).
void print_perf_report_lines(std::ostream& out, const PerfReportLines& r) {
    constexpr size_t kShown = 3;
    size_t shown = 0, cut = 0;
    for (const std::string& line : r.errors) {
        const bool piped = line.rfind("CS ETM warning", 0) == 0 || line.rfind("Continuing", 0) == 0;
        if (!piped && shown++ >= kShown) {
            ++cut;
            continue;
        }
        if (cut && piped) {
            out << "perf: (" << cut << " more such lines: run.json's perf_report)\n";
            cut = 0;
        }
        out << "perf: " << line << "\n";
    }
    if (cut) out << "perf: (" << cut << " more such lines: run.json's perf_report)\n";
    if (r.warnings.empty())
        out << "perf: no warning from perf report (no PERF_RECORD_LOST, at most 5% of samples "
               "lost, no TRUNCATED AUX data, in time order)\n";
    for (const std::string& line : r.warnings)
        out << "perf: " << line << "\n";
    for (const std::string& line : r.after)
        out << "perf: " << line << "\n";
}

void print_aux_summary(std::ostream& out, const StatValues& t) {
    using models::GapCause;
    auto n = [&t](const std::string& path) { return t.count("aux." + path); };
    out << "\nAUX: " << n("records_delivered") << " PERF_RECORD_AUX in perf.data, "
        << n("driver.harvests") << " harvests, " << n("consumer.reads") << " AUX reads";
    if (n("consumer.snapshots")) out << ", " << n("consumer.snapshots") << " snapshots";
    out << "\n";
    out << "ringsim: trace produced " << n("bytes.produced") << " = delivered "
        << n("bytes.delivered") << " + lost " << n("bytes.lost") << " + unread "
        << n("bytes.unread");
    if (n("bytes.corrupted")) out << " + corrupted " << n("bytes.corrupted");
    if (n("bytes.in_flight")) out << " + in flight " << n("bytes.in_flight");
    out << " bytes\n";
    for (size_t c = 0; c < models::kGapCauses; ++c) {
        const std::string cause = models::to_string(GapCause(c));
        const uint64_t gaps = n("gaps_by_cause." + cause), lost = n("lost_by_cause." + cause);
        if (!gaps && !lost) continue;
        out << "ringsim:   " << std::left << std::setw(20) << cause << std::right << std::setw(8)
            << gaps << " gaps " << std::setw(12) << lost
            << (c >= models::kLossCauses ? " bytes not traced\n" : " bytes lost\n");
    }
    if (n("violations.total"))
        out << "ringsim: " << n("violations.total") << " AUX VIOLATIONS (stale "
            << n("violations.stale") << ", overrun " << n("violations.overrun") << ", unexplained "
            << n("violations.unexplained") << ", duplicated " << n("violations.duplicated")
            << ", accounting " << n("violations.accounting") << ")\n";
}

} // namespace

void print_summary(std::ostream& out, const Platform& p, const RunInfo& info) {
    const StatValues t = total_values(p);
    auto n = [&t](const char* path) { return t.count(path); };
    out << "ringsim " << RINGSIM_VERSION << ": " << info.scenario_path << " (seed " << info.seed
        << ")\n";
    out << "simulated " << std::fixed << std::setprecision(6) << double(info.sim_time_ps) * 1e-9
        << " ms in " << std::setprecision(3) << info.wall_seconds << " s of wall time\n\n";

    auto row = [&](const std::string& name, const StatValues& s) {
        out << std::left << std::setw(8) << name << std::right << std::setw(10)
            << s.count("records.produced") << std::setw(11) << s.count("records.delivered")
            << std::setw(8) << s.count("records.lost") << std::setw(8) << s.count("records.unread")
            << std::setw(12) << s.count("records.overwritten") << std::setw(6)
            << s.count("lost_records") << std::setw(9) << s.count("wakeups") << std::setw(7)
            << s.count("consumer.polls") << std::setw(11) << s.count("violations.total") << "\n";
    };
    out << std::left << std::setw(8) << "buffer" << std::right << std::setw(10) << "produced"
        << std::setw(11) << "delivered" << std::setw(8) << "lost" << std::setw(8) << "unread"
        << std::setw(12) << "overwritten" << std::setw(6) << "LOST" << std::setw(9) << "wakeups"
        << std::setw(7) << "polls" << std::setw(11) << "violations"
        << "\n";
    for (unsigned i = 0; i < p.buffers().size(); ++i)
        row(p.buffers()[i].name, buffer_values(p, i));
    row("total", t);
    out << "\n";

    // __cmd_record's own line at exit (the push reader is perf record; libperf is another
    // tool). "Captured and wrote" follows the run with --perf-data, when the file exists.
    if (p.consumer().reader() == models::ReaderKind::push)
        out << "perf: [ perf record: Woken up " << p.consumer().polls()
            << " times to write data ]\n";
    print_perf_report_lines(out, perf_report_lines(p.perf_data()));
    if (p.consumer().keep_up_warnings()) {
        const models::ReaderKind r = p.consumer().reader();
        if (r == models::ReaderKind::push || r == models::ReaderKind::libperf)
            out << "perf: failed to keep up with mmap data. (warn only once)\n";
        else // the other projects' readers have no such check (perf_consumer.cpp)
            out << "ringsim: data_head was more than a buffer ahead of the reader in "
                << p.consumer().keep_up_warnings()
                << " passes; the unread data was skipped (consumer.keep_up_failures)\n";
    }

    out << "ringsim: produced " << n("records.produced") << " = delivered "
        << n("records.delivered") << " + lost " << n("records.lost") << " + unread "
        << n("records.unread") << " + overwritten " << n("records.overwritten");
    if (n("records.corrupted") + n("records.missing"))
        out << " + corrupted " << n("records.corrupted") << " + missing " << n("records.missing");
    if (n("records.skipped")) out << " + skipped " << n("records.skipped");
    if (n("records.in_flight")) out << " + in flight " << n("records.in_flight");
    out << " records\n";
    if (n("records.skipped"))
        out << "ringsim: the tool stepped over " << n("records.skipped")
            << " records without reading them (perf_mmap__read_done or a keep-up failure, C3)\n";
    if (n("records.duplicated"))
        out << "ringsim: perf_mmap__push copied " << n("records.duplicated")
            << " records twice: data_head moved between its two reads (C4)\n";
    out << "ringsim: lost " << n("records.lost") << " = reported by PERF_RECORD_LOST "
        << n("lost_reported") << " + not yet reported " << n("lost_unreported") << "\n";
    out << "ringsim: " << n("bytes.delivered") << " of " << n("bytes.produced")
        << " record bytes delivered, " << n("wakeups") << " wakeups (" << n("wakeups_delivered")
        << " delivered), " << n("consumer.polls") << " polls\n";

    if (p.aux_enabled()) print_aux_summary(out, t);

    if (p.aux_checker()) {
        for (const auto& v : p.aux_checker()->violations()) {
            out << "\nAUX violation (" << v.kind << ", " << v.buffer << ", seen at "
                << models::us_text(v.at_ps) << "):\n";
            std::istringstream lines(v.explanation);
            for (std::string line; std::getline(lines, line);)
                out << "  " << line << "\n";
            if (!v.fix.empty()) out << "  Fix: " << v.fix << "\n";
            break; // the first in full; violations.json lists the others
        }
    }
    const uint64_t violations = data_violations(t);
    if (!violations) {
        out << (aux_violations(t) ? "ringsim: no violations in the data buffers\n"
                                  : "ringsim: no violations\n");
    } else {
        out << "ringsim: " << violations << " VIOLATIONS (stale " << n("violations.stale")
            << ", overrun " << n("violations.overrun") << ", torn " << n("violations.torn")
            << ", corrupt " << n("violations.corrupt") << ", missing " << n("violations.missing")
            << ", duplicated " << n("violations.duplicated") << ", accounting "
            << n("violations.accounting") << ")\n";
        const auto& vs = p.checker().violations();
        if (!vs.empty()) {
            // The first one in full: the story a student follows; the others in a line.
            const auto& v = vs.front();
            out << "\nfirst violation (" << v.kind << ", " << v.buffer << ", seen at "
                << models::us_text(v.at_ps) << "):\n";
            std::istringstream lines(v.explanation);
            for (std::string line; std::getline(lines, line);)
                out << "  " << line << "\n";
            if (!v.fix.empty()) out << "  Fix: " << v.fix << "\n";
            for (size_t i = 1; i < vs.size(); ++i)
                out << "  also: " << vs[i].kind << " in " << vs[i].buffer << " at position "
                    << vs[i].pos << ", seen at " << models::us_text(vs[i].at_ps) << "\n";
            if (violations > vs.size())
                out << "  (" << violations - vs.size() << " more; violations.json lists the first "
                    << vs.size() << ")\n";
        }
    }
    print_warnings(out, p, info);
}

void print_warnings(std::ostream& out, const Platform& p, const RunInfo& info) {
    if (!info.stopped_by.empty())
        out << "ringsim: WARNING: stopped by " << info.stopped_by << " at "
            << models::us_text(info.sim_time_ps)
            << " of simulated time; the books are closed there (records in flight: "
            << total_values(p).count("records.in_flight") << ")\n";
    else if (!p.finished())
        out << "ringsim: WARNING: the consumer never finished; the run ended early\n";
}

json violations_json(const Platform& p) {
    json list = json::array();
    auto add = [&list](const models::Violation& v) {
        list.push_back({{"kind", v.kind},
                        {"buffer", v.buffer},
                        {"position", v.pos},
                        {"seen_at_ps", v.at_ps},
                        {"barriers", v.barriers},
                        {"explanation", v.explanation},
                        {"fix", v.fix}});
    };
    for (const auto& v : p.checker().violations())
        add(v);
    if (p.aux_checker())
        for (const auto& v : p.aux_checker()->violations())
            add(v);
    const StatValues t = total_values(p);
    return {{"total", t.count("violations.total")}, {"listed", list.size()}, {"violations", list}};
}

namespace {

bool aux_path(const models::StatDecl& d) {
    return d.path.compare(0, 4, "aux.") == 0;
}

} // namespace

void print_stat_defs(std::ostream& out) {
    const auto& decls = stat_registry().decls();
    size_t w = 0;
    for (const auto& d : decls)
        w = std::max(w, d.path.size());
    auto list = [&](bool aux) {
        for (const auto& d : decls)
            if (aux_path(d) == aux)
                out << "  " << std::left << std::setw(int(w) + 2) << d.path << std::setw(11)
                    << d.unit << std::setw(16) << models::to_string(d.scope) << d.description
                    << "\n";
    };
    out << "Statistics in stats.json, under \"total\" and under each entry of \"buffers\"\n"
        << "(path, unit, where, description):\n\n";
    list(false);
    out << "\nStatistics of the AUX path (with session.aux.enabled):\n\n";
    list(true);
}

std::string stat_defs_markdown() {
    const auto& decls = stat_registry().decls();
    std::ostringstream o;
    auto table = [&](bool aux) {
        o << "| path | unit | in | description |\n|---|---|---|---|\n";
        for (const auto& d : decls)
            if (aux_path(d) == aux)
                o << "| `" << d.path << "` | " << d.unit << " | " << models::to_string(d.scope)
                  << " | " << d.description << " |\n";
    };
    o << "# Statistics\n\n"
      << "Generated from the statistics registry (`models/common/stat_registry.h`): each model\n"
      << "declares the statistics it counts in its own .cpp, and `ringsim stats` prints the same\n"
      << "table; tests/unit/stats_doc_test.cpp fails when this page and the registry disagree.\n\n"
      << "`stats.json` holds an object `total` and an array `buffers`, one entry per ring\n"
      << "buffer (with its `name` and `cpu`, -1 for a per-thread buffer). A dotted path is\n"
      << "nested objects (`records.produced` is `{\"records\": {\"produced\": N}}`); the column\n"
      << "`in` says whether a statistic is under `total`, under each entry of `buffers`, or\n"
      << "both. `total` is the sum over the buffers, except `consumer.polls`, which there\n"
      << "counts the consumer's poll() calls, and `violations.total`, which there adds the AUX\n"
      << "path's `aux.violations.total`. A fraction is a ratio of two counters of the same\n"
      << "object, a JSON number, 0 when its denominator is. Sweeps and merges address a\n"
      << "statistic by its full path, `total.records.lost` or `buffers.*.aux.bytes.lost`\n"
      << "(`*` a buffer's index).\n\n"
      << "Identities the checker enforces per buffer (a violation when they fail):\n"
      << "`records.produced = records.delivered + records.lost + records.unread +\n"
      << "records.overwritten + violations.corrupt + violations.missing + records.skipped +\n"
      << "records.in_flight` and\n"
      << "`records.lost = lost_reported + lost_unreported`.\n\n";
    table(false);
    o << "\n## The AUX path\n\n"
      << "With `session.aux.enabled`, `total` and each entry of `buffers` also hold `aux`. Trace\n"
      << "bytes are the ETMs' own bytes (count packets: an E atom and a Timestamp; start and\n"
      << "sync blocks: A-Sync, Trace Info, Trace On at a start, Address with Context), not the\n"
      << "formatter's frames. The checker closes these books per source, and a buffer's books\n"
      << "are those of the sources its event traces (its CPU's ETM per CPU, every ETM the task\n"
      << "ran on per thread), wherever a shared sink's harvest copied their bytes; the total's\n"
      << "are their sum: `bytes.produced = bytes.delivered + bytes.lost + bytes.unread +\n"
      << "bytes.corrupted + bytes.in_flight`, `bytes.lost` is the sum of the first seven "
         "`lost_by_cause.*`, and\n"
      << "the last two (`stop_window`, `aux_disabled`) count trace never produced, also in\n"
      << "`bytes.untraced`. Each gap in a source's decoded counts is counted once, under its\n"
      << "first cause, in `gaps_by_cause.*`. The driver's, the sinks' and perf's AUX reader's\n"
      << "counts serve every buffer and are in `total` only.\n\n";
    table(true);
    return o.str();
}

} // namespace ringsim::platform
