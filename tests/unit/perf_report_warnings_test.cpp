// What ringsim says perf report would warn (perf_session__warn_about_errors, session.c, C9)
// is recomputed here from stats.json with perf's own formulas, for every curated scenario
// and variants that lose more or less than perf's 5% threshold: the warnings, their order
// and their words. And perf.data's PERF_RECORD_LOST_SAMPLES (record__read_lost_samples)
// carry every record the kernel dropped (event->lost_samples grows with rb->lost).
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

// perf's cs-etm decoder's lines, which the perf judge (perf_data_test) checks against perf.
bool cs_etm_line(const std::string& line) {
    return line.rfind("CS ETM", 0) == 0 || line.rfind("Continuing with", 0) == 0 ||
           line.rfind("(", 0) == 0;
}

// The lines of perf report's warnings in a summary: those that start with "perf: ", but
// perf record's own keep-up warning and cs-etm's lines.
std::vector<std::string> perf_lines(const std::string& summary) {
    std::vector<std::string> lines;
    std::istringstream text(summary);
    for (std::string line; std::getline(text, line);)
        if (line.rfind("perf: ", 0) == 0 && line.find("keep up") == std::string::npos &&
            !cs_etm_line(line.substr(6)) && line.find("Captured and wrote") == std::string::npos)
            lines.push_back(line.substr(6));
    return lines;
}

uint64_t u(const json& j, const std::string& dotted) {
    return ringsim::testing_support::stat_at(j, dotted);
}

// perf_session__warn_about_errors, for the records ringsim's perf.data holds.
// perf record's exit line (push is perf record; libperf another tool), then perf report's
// warnings.
std::vector<std::string> perf_would_say(const json& t, bool perf_record) {
    std::vector<std::string> w;
    // __cmd_record: waking++ after every fdarray__poll of its loop.
    if (perf_record)
        w.push_back("[ perf record: Woken up " + std::to_string(u(t, "consumer.polls")) +
                    " times to write data ]");
    const uint64_t lost_chunks = u(t, "lost_records");
    // nr_events[0]: every record perf report processes: those the checker saw delivered
    // (twice for a duplicate), the LOST and LOST_SAMPLES records, and perf's own.
    const uint64_t events = u(t, "records.delivered") + u(t, "records.duplicated") + lost_chunks +
                            u(t, "lost_samples_records") + u(t, "perf_data.finished_rounds") +
                            u(t, "perf_data.auxtrace_records") + (t.contains("aux") ? 1 : 0);
    EXPECT_EQ(events, u(t, "perf_data.events")) << "the writer's records are not the checker's";
    if (lost_chunks) {
        w.push_back("Processed " + std::to_string(events) + " events and lost " +
                    std::to_string(lost_chunks) + " chunks!");
        w.push_back("Check IO/CPU overload!");
    }
    const uint64_t samples = u(t, "records.samples_in_perf_data");
    const uint64_t lost_samples = u(t, "records.lost"); // the LOST_SAMPLES records' sum
    const double drop_rate = double(lost_samples) / double(samples + lost_samples);
    if (drop_rate > 0.05) {
        char line[128];
        std::snprintf(line, sizeof line, "Processed %llu samples and lost %3.2f%%!",
                      static_cast<unsigned long long>(samples + lost_samples), drop_rate * 100.0);
        w.push_back(line);
    }
    if (t.contains("aux") && u(t, "aux.truncated_delivered"))
        w.push_back("AUX data lost " + std::to_string(u(t, "aux.truncated_delivered")) +
                    " times out of " + std::to_string(u(t, "aux.records_delivered")) + "!");
    if (u(t, "perf_data.unordered_events"))
        w.push_back(std::to_string(u(t, "perf_data.unordered_events")) +
                    " out of order events recorded.");
    if (w.size() == (perf_record ? 1u : 0u))
        w.push_back("no warning from perf report (no PERF_RECORD_LOST, at most 5% of samples "
                    "lost, no TRUNCATED AUX data, in time order)");
    return w;
}

struct Case {
    const char* scenario;
    const char* sets;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.scenario << " " << c.sets;
}

class PerfReportWarnings : public ::testing::TestWithParam<Case> {};

TEST_P(PerfReportWarnings, AreWhatPerfWouldPrintForThisData) {
    const Case c = GetParam();
    const auto r = ringsim::testing_support::run_ringsim(c.scenario, c.sets);
    const json& total = r.stats.at("total");
    const bool perf_record = std::string(c.sets).find("reader=libperf") == std::string::npos;
    EXPECT_EQ(perf_lines(r.stdout_text), perf_would_say(total, perf_record))
        << c.scenario << " " << c.sets;
    // record__read_lost_samples: one LOST_SAMPLES per event with losses, at most one per
    // event and buffer, none without loss.
    if (u(total, "records.lost") == 0)
        EXPECT_EQ(u(total, "lost_samples_records"), 0u);
    else
        EXPECT_GT(u(total, "lost_samples_records"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, PerfReportWarnings,
    ::testing::Values(Case{"scenarios/quickstart.json", ""},
                      Case{"scenarios/slow-consumer.json", ""},
                      // Slower still, and a bit faster: around perf's 5% threshold.
                      // Lost chunks, and fewer than 5% of the samples lost: no samples warning.
                      Case{"scenarios/slow-consumer.json",
                           "--set consumer.copy_bandwidth=100MB/s "
                           "--set consumer.write_bandwidth=100MB/s"},
                      Case{"scenarios/slow-consumer.json", "--set session.data_pages=16"},
                      Case{"scenarios/slow-consumer.json", "--set session.data_pages=64"},
                      Case{"scenarios/overwrite.json", ""}, Case{"scenarios/nested-nmi.json", ""},
                      Case{"scenarios/per-thread.json", ""}, Case{"scenarios/etr-wrap.json", ""},
                      Case{"scenarios/aux-full.json", ""}, Case{"scenarios/snapshot.json", ""},
                      Case{"scenarios/demand-paging.json", ""},
                      Case{"scenarios/slow-consumer.json", "--set consumer.reader=libperf"}),
    [](const auto& param) { return "case" + std::to_string(param.index); });

} // namespace
