#include "platform/output.h"

#include "platform/config/units.h"

#include <iomanip>
#include <sstream>

#ifndef RINGSIM_VERSION
#define RINGSIM_VERSION "unknown"
#endif

namespace ringsim::platform {

using models::BufferStats;
using nlohmann::json;

namespace {

// "records.produced" -> obj["records"]["produced"].
void put_path(json& obj, const std::string& dotted, uint64_t value) {
    json* node = &obj;
    size_t from = 0;
    for (size_t dot; (dot = dotted.find('.', from)) != std::string::npos; from = dot + 1)
        node = &(*node)[dotted.substr(from, dot - from)];
    (*node)[dotted.substr(from)] = value;
}

// "356.855 us": simulated times in the summary, to the nanosecond.
std::string human_time(uint64_t ps) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(3) << double(ps) / 1e6 << " us";
    return o.str();
}

json stats_object(const BufferStats& s) {
    json obj = json::object();
    for (const auto& d : models::buffer_stat_defs()) put_path(obj, d.path, s.*d.field);
    return obj;
}

} // namespace

BufferStats total_stats(const Platform& p) {
    BufferStats t;
    for (const BufferSlot& b : p.buffers())
        for (const auto& d : models::buffer_stat_defs()) t.*d.field += b.stats.*d.field;
    t.consumer_polls = p.consumer().polls();
    return t;
}

json aux_object(const models::AuxStats& a) {
    json obj = json::object();
    for (const auto& d : models::aux_stat_defs()) put_path(obj, d.path, models::aux_stat_value(a, d));
    return obj;
}

json stats_json(const Platform& p) {
    json out;
    out["total"] = stats_object(total_stats(p));
    if (p.aux_enabled()) out["total"]["aux"] = aux_object(p.aux_stats());
    json buffers = json::array();
    for (const BufferSlot& b : p.buffers()) {
        json obj = stats_object(b.stats);
        obj["name"] = b.name;
        obj["cpu"] = b.cpu;
        buffers.push_back(std::move(obj));
    }
    out["buffers"] = std::move(buffers);
    return out;
}

json run_json(const Platform& p, const RunInfo& info) {
    const BufferStats t = total_stats(p);
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
        info.wall_seconds > 0 ? double(t.records_produced) / info.wall_seconds : 0.0;
    out["data_lost"] = t.records_lost + t.records_overwritten + t.records_unread > 0;
    out["violations"] = t.violations_total + p.aux_stats().violations_total;
    if (p.aux_enabled()) {
        const models::AuxStats a = p.aux_stats();
        out["aux_data_lost"] = a.bytes_lost + a.bytes_unread + a.bytes_corrupted > 0;
    }
    out["completed"] = p.finished();
    out["effective_config"] = info.effective;
    return out;
}

void print_aux_summary(std::ostream& out, const models::AuxStats& a) {
    using models::GapCause;
    out << "\nAUX: " << a.records_delivered << " PERF_RECORD_AUX in perf.data, "
        << a.harvests << " harvests, " << a.consumer_reads << " AUX reads";
    if (a.consumer_snapshots) out << ", " << a.consumer_snapshots << " snapshots";
    out << "\n";
    // perf_session__warn_about_errors (C9).
    if (a.truncated_delivered)
        out << "perf: AUX data lost " << a.truncated_delivered << " times out of "
            << a.records_delivered << "!\n";
    else
        out << "perf: no AUX loss warning (no PERF_RECORD_AUX with TRUNCATED)\n";
    out << "ringsim: trace produced " << a.bytes_produced << " = delivered " << a.bytes_delivered
        << " + lost " << a.bytes_lost << " + unread " << a.bytes_unread;
    if (a.bytes_corrupted) out << " + corrupted " << a.bytes_corrupted;
    out << " bytes\n";
    for (size_t c = 0; c < models::kGapCauses; ++c) {
        if (!a.gaps_by_cause[c] && !a.lost_by_cause[c]) continue;
        out << "ringsim:   " << std::left << std::setw(20) << models::to_string(GapCause(c))
            << std::right << std::setw(8) << a.gaps_by_cause[c] << " gaps "
            << std::setw(12) << a.lost_by_cause[c]
            << (c >= models::kLossCauses ? " bytes not traced\n" : " bytes lost\n");
    }
    if (a.violations_total)
        out << "ringsim: " << a.violations_total << " AUX VIOLATIONS (stale "
            << a.violations_stale << ", overwritten " << a.violations_overwritten
            << ", unexplained " << a.violations_unexplained << ", duplicated "
            << a.violations_duplicated << ", accounting " << a.violations_accounting << ")\n";
}

void print_summary(std::ostream& out, const Platform& p, const RunInfo& info) {
    const BufferStats t = total_stats(p);
    out << "ringsim " << RINGSIM_VERSION << ": " << info.scenario_path << " (seed " << info.seed
        << ")\n";
    out << "simulated " << std::fixed << std::setprecision(6) << double(info.sim_time_ps) * 1e-9
        << " ms in " << std::setprecision(3) << info.wall_seconds << " s of wall time\n\n";

    auto row = [&](const std::string& name, const BufferStats& s) {
        out << std::left << std::setw(8) << name << std::right << std::setw(10)
            << s.records_produced << std::setw(11) << s.records_delivered << std::setw(8)
            << s.records_lost << std::setw(8) << s.records_unread << std::setw(12)
            << s.records_overwritten << std::setw(6) << s.lost_records << std::setw(9)
            << s.wakeups << std::setw(7) << s.consumer_polls << std::setw(11)
            << s.violations_total << "\n";
    };
    out << std::left << std::setw(8) << "buffer" << std::right << std::setw(10) << "produced"
        << std::setw(11) << "delivered" << std::setw(8) << "lost" << std::setw(8) << "unread"
        << std::setw(12) << "overwritten" << std::setw(6) << "LOST" << std::setw(9)
        << "wakeups" << std::setw(7) << "polls" << std::setw(11) << "violations" << "\n";
    for (const BufferSlot& b : p.buffers()) row(b.name, b.stats);
    row("total", t);
    out << "\n";

    // What perf report would print for this perf.data (session.c :
    // perf_session__warn_about_errors, C9): only when PERF_RECORD_LOST records exist.
    if (t.lost_records) {
        out << "perf: Processed " << t.records_delivered + t.lost_records << " events and lost "
            << t.lost_records << " chunks!\n";
        out << "perf: Check IO/CPU overload!\n";
    } else {
        out << "perf: no loss warning (no PERF_RECORD_LOST in the data)\n";
    }
    if (p.consumer().keep_up_warnings())
        out << "perf: failed to keep up with mmap data. (warn only once)\n";

    out << "ringsim: produced " << t.records_produced << " = delivered " << t.records_delivered
        << " + lost " << t.records_lost << " + unread " << t.records_unread << " + overwritten "
        << t.records_overwritten;
    if (t.records_corrupted + t.records_missing)
        out << " + corrupted " << t.records_corrupted << " + missing " << t.records_missing;
    if (t.records_skipped) out << " + skipped " << t.records_skipped;
    out << " records\n";
    if (t.records_skipped)
        out << "ringsim: the tool stepped over " << t.records_skipped
            << " records without reading them (perf_mmap__read_done or a keep-up failure, C3)\n";
    if (t.records_duplicated)
        out << "ringsim: perf_mmap__push copied " << t.records_duplicated
            << " records twice: data_head moved between its two reads (C4)\n";
    out << "ringsim: lost " << t.records_lost << " = reported by PERF_RECORD_LOST "
        << t.lost_reported << " + not yet reported " << t.lost_unreported << "\n";
    out << "ringsim: " << t.bytes_delivered << " of " << t.bytes_produced
        << " record bytes delivered, " << t.wakeups << " wakeups ("
        << t.wakeups_delivered << " delivered), " << t.consumer_polls << " polls\n";

    if (p.aux_enabled()) print_aux_summary(out, p.aux_stats());

    if (p.aux_checker()) {
        for (const auto& v : p.aux_checker()->violations()) {
            out << "\nAUX violation (" << v.kind << ", " << v.buffer << ", seen at "
                << human_time(v.at_ps) << "):\n";
            std::istringstream lines(v.explanation);
            for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
            if (!v.fix.empty()) out << "  Fix: " << v.fix << "\n";
            break; // the first in full; violations.json lists the others
        }
    }
    if (!t.violations_total) {
        out << (p.aux_stats().violations_total ? "ringsim: no violations in the data buffers\n"
                                               : "ringsim: no violations\n");
    } else {
        out << "ringsim: " << t.violations_total << " VIOLATIONS (stale " << t.violations_stale
            << ", overwritten " << t.violations_overwritten << ", torn " << t.violations_torn
            << ", corrupt " << t.violations_corrupt << ", missing " << t.violations_missing
            << ", duplicated " << t.violations_duplicated << ", accounting "
            << t.violations_accounting << ")\n";
        const auto& vs = p.checker().violations();
        if (!vs.empty()) {
            // The first one in full: the story a student follows; the others in a line.
            const auto& v = vs.front();
            out << "\nfirst violation (" << v.kind << ", " << v.buffer << ", seen at "
                << human_time(v.at_ps) << "):\n";
            std::istringstream lines(v.explanation);
            for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
            if (!v.fix.empty()) out << "  Fix: " << v.fix << "\n";
            for (size_t i = 1; i < vs.size(); ++i)
                out << "  also: " << vs[i].kind << " in " << vs[i].buffer << " at position "
                    << vs[i].pos << ", seen at " << human_time(vs[i].at_ps) << "\n";
            if (t.violations_total > vs.size())
                out << "  (" << t.violations_total - vs.size()
                    << " more; violations.json lists the first " << vs.size() << ")\n";
        }
    }
    if (!p.finished())
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
    for (const auto& v : p.checker().violations()) add(v);
    if (p.aux_checker())
        for (const auto& v : p.aux_checker()->violations()) add(v);
    const BufferStats t = total_stats(p);
    return {{"total", t.violations_total + p.aux_stats().violations_total},
            {"listed", list.size()},
            {"violations", list}};
}

void print_stat_defs(std::ostream& out) {
    size_t w = 0;
    for (const auto& d : models::buffer_stat_defs()) w = std::max(w, std::string(d.path).size());
    out << "Statistics in stats.json, under \"total\" and under each entry of \"buffers\":\n\n";
    for (const auto& d : models::buffer_stat_defs())
        out << "  " << std::left << std::setw(int(w) + 2) << d.path << std::setw(12) << d.unit
            << d.description << "\n";
    out << "\nStatistics of the AUX path, under \"total.aux\" (with session.aux.enabled):\n\n";
    for (const auto& d : models::aux_stat_defs())
        out << "  " << std::left << std::setw(36) << d.path << std::setw(12) << d.unit
            << d.description << "\n";
}

} // namespace ringsim::platform

namespace ringsim::platform {

std::string stat_defs_markdown() {
    std::ostringstream o;
    o << "# Statistics\n\n"
      << "Generated from `models/common/buffer_stats.cpp` (the table `ringsim stats` prints);\n"
      << "tests/unit/stats_doc_test.cpp fails when this page and the table disagree.\n\n"
      << "`stats.json` holds an object `total` and an array `buffers`, one entry per ring\n"
      << "buffer (with its `name` and `cpu`, -1 for a per-thread buffer). Each has the\n"
      << "statistics below, a dotted path being nested objects (`records.produced` is\n"
      << "`{\"records\": {\"produced\": N}}`). `total` is the sum over the buffers, except\n"
      << "`consumer.polls`, which there counts the consumer's poll() calls.\n\n"
      << "Identities the checker enforces per buffer (a violation when they fail):\n"
      << "`records.produced = records.delivered + records.lost + records.unread +\n"
      << "records.overwritten + violations.corrupt + violations.missing` and\n"
      << "`records.lost = lost_reported + lost_unreported`.\n\n"
      << "| path | unit | description |\n|---|---|---|\n";
    for (const auto& d : models::buffer_stat_defs())
        o << "| `" << d.path << "` | " << d.unit << " | " << d.description << " |\n";
    o << "\n## The AUX path\n\n"
      << "With `session.aux.enabled`, `total` also holds `aux`, from\n"
      << "`models/common/aux_stats.cpp`. Trace bytes are the ETMs' own bytes (count packets,\n"
      << "A-Sync and Trace Info), not the formatter's frames. The checker closes these books\n"
      << "per source: `bytes.produced = bytes.delivered + bytes.lost + bytes.unread +\n"
      << "bytes.corrupted`, `bytes.lost` is the sum of the first seven `lost_by_cause.*`, and\n"
      << "the last two (`stop_window`, `aux_disabled`) count trace never produced, also in\n"
      << "`bytes.untraced`. Each gap in a source's decoded counts is counted once, under its\n"
      << "first cause, in `gaps_by_cause.*`.\n\n"
      << "| path | unit | description |\n|---|---|---|\n";
    for (const auto& d : models::aux_stat_defs())
        o << "| `aux." << d.path << "` | " << d.unit << " | " << d.description << " |\n";
    return o.str();
}

} // namespace ringsim::platform
