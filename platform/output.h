// What a run leaves behind: DIR/stats.json (stable nested keys, one object per buffer and
// their total), DIR/run.json (everything needed to reproduce and judge the run) and the
// human summary on stdout, in the perf tool's own words beside ringsim's exact figures.
#pragma once

#include "platform/builder.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace ringsim::platform {

struct RunInfo {
    std::string scenario_path;
    uint64_t seed = 0;
    nlohmann::json effective; // the effective scenario (every key filled)
    uint64_t sim_time_ps = 0;
    double wall_seconds = 0;
    uint64_t delta_cycles = 0; // SystemC scheduler evaluation rounds
    std::string stopped_by;    // "SIGINT" or "SIGTERM" when a signal stopped the run early
};

// Every statistic of the registry (stat_paths.h) that applies, read from the platform's live
// model instances: "total" sums every instance (consumer.polls is the consumer's own count),
// each entry of "buffers" its own buffer's.
nlohmann::json stats_json(const Platform& p);
nlohmann::json run_json(const Platform& p, const RunInfo& info);

// What perf report --no-itrace prints reading this run's perf.data, without the "Warning:"
// and "Error:" headings and blank lines: the cs-etm decoder's errors while it queues the AUX data,
// then perf_session__warn_about_errors's warnings.
struct PerfReportLines {
    std::vector<std::string> errors, warnings;
    std::vector<std::string> after; // __cmd_report's own, after the warnings
};
PerfReportLines perf_report_lines(const PerfDataWriter& file);
// DIR/violations.json: the first violations with their explanations.
nlohmann::json violations_json(const Platform& p);
void print_summary(std::ostream& out, const Platform& p, const RunInfo& info);
// The summary's closing warnings alone (a run stopped by a signal, a consumer that never
// finished): what `run --stats-only` prints of it.
void print_warnings(std::ostream& out, const Platform& p, const RunInfo& info);
// `ringsim stats`: every statistic with its unit, where it appears and its description.
void print_stat_defs(std::ostream& out);
// docs/statistics.md, generated from the same registry.
std::string stat_defs_markdown();

} // namespace ringsim::platform
