// perf is the judge (issue 12 §3): Debian's perf 6.1 (linux-perf, with OpenCSD) reads the
// perf.data ringsim writes for every curated scenario and the variants below, and what it
// reports must be what ringsim predicted:
//  - `perf report --stats`: every record type's count equals the writer's, and those equal
//    ringsim's own books (the checker's delivered samples, LOST and LOST_SAMPLES records,
//    PERF_RECORD_AUX delivered, the AUX reads);
//  - `perf report`'s stderr: exactly run.json's perf_report lines (cs-etm's errors, then
//    perf_session__warn_about_errors's warnings), but the lines about the host perf runs on;
//  - `perf script -F cpu,time,period`: each sample's fields as the kernel model wrote them;
//  - AUX sessions, `perf report -D` (OpenCSD's packet decoder): no decode error, as many
//    discontinuities in each trace ID's timestamps (ringsim's counts) as ringsim reports
//    (aux.discontinuities), and every one of them resumes after an A-Sync.
// A file whose copies a reordering corrupted is no stream of records: perf must stop with
// "failed to process sample", as ringsim says it will.
// Without perf the cases are skipped, but not under CI, whose setup installs it.
#include "models/kernel/perf_abi.h"
#include "models/user/record_parser.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using nlohmann::json;
using ringsim::testing_support::run_command_output;
using ringsim::testing_support::run_ringsim;

struct Case {
    const char* scenario;
    const char* sets;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.scenario << " " << c.sets;
}

bool have_perf() {
    static const bool yes = std::system("perf version > /dev/null 2>&1") == 0;
    return yes;
}

uint64_t u(const json& j, const std::string& dotted) {
    return ringsim::testing_support::stat_at(j, dotted);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        v.push_back(line);
    return v;
}

// "ringsim: wrote FILE: N events, B bytes of data (SAMPLE 3000, FINISHED_ROUND 4)".
std::map<std::string, uint64_t> written_counts(const std::string& summary) {
    std::map<std::string, uint64_t> m;
    for (const std::string& line : lines_of(summary)) {
        const auto open = line.find(" bytes of data (");
        if (line.rfind("ringsim: wrote ", 0) != 0 || open == std::string::npos) continue;
        std::istringstream items(line.substr(open + 16));
        for (std::string item; std::getline(items, item, ',');) {
            std::istringstream words(item);
            std::string type;
            uint64_t n = 0;
            words >> type >> n;
            m[type] = n;
        }
    }
    return m;
}

// perf report --stats's "Aggregated stats:" block: "  SAMPLE events:  3000  (99.9%)".
std::map<std::string, uint64_t> perf_stats(const std::string& out) {
    std::map<std::string, uint64_t> m;
    bool in_block = false;
    const std::regex row(R"(^\s*(\S+) events:\s+(\d+))");
    for (const std::string& line : lines_of(out)) {
        if (line.find("Aggregated stats:") != std::string::npos) {
            in_block = true;
            continue;
        }
        if (!in_block) continue;
        if (line.size() > 7 && line.compare(line.size() - 7, 7, " stats:") == 0) break;
        std::smatch s;
        if (std::regex_search(line, s, row)) m[s[1]] = std::stoull(s[2]);
    }
    return m;
}

// perf report's stderr without headings, blank lines and what it says about the host it
// runs on (no kernel symbols here: ringsim's IPs are in no map).
std::vector<std::string> perf_report_lines(const std::string& err) {
    static const std::vector<std::string> host = {
        "Kernel address maps (/proc/{kallsyms,modules}) were restricted.",
        "Check /proc/sys/kernel/kptr_restrict before running 'perf record'.",
        "As no suitable kallsyms nor vmlinux was found, kernel samples",
        "can't be resolved.",
        "Samples in kernel modules can't be resolved as well.",
        "Check /proc/sys/kernel/kptr_restrict and /proc/sys/kernel/perf_event_paranoid.",
    };
    std::vector<std::string> v;
    for (std::string line : lines_of(err)) {
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
            line.pop_back();
        if (line.empty() || line == "Warning:" || line == "Error:") continue;
        if (std::find(host.begin(), host.end(), line) != host.end()) continue;
        v.push_back(line);
    }
    return v;
}

std::string path_for(const Case& c, const char* what) {
    std::string name = std::string(c.scenario) + c.sets;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return ::testing::TempDir() + "/perfdata-" + std::to_string(::getpid()) + "-" + what + "-" +
           name.substr(0, 80) + ".data";
}

// The SAMPLE records of perf.data's data section, read with ringsim's own parser: cpu,
// time in ns, period (the last field of sample_type here).
struct Sample {
    uint32_t cpu = 0;
    uint64_t time_ns = 0, period = 0;
    bool operator<(const Sample& o) const {
        return std::tie(time_ns, cpu, period) < std::tie(o.time_ns, o.cpu, o.period);
    }
    bool operator==(const Sample& o) const {
        return cpu == o.cpu && time_ns == o.time_ns && period == o.period;
    }
};

// Cases that need perf: skipped without it, but not under CI, whose setup installs it.
template <class Param> class NeedsPerf : public ::testing::TestWithParam<Param> {
protected:
    void SetUp() override {
        if (have_perf()) return;
        if (std::getenv("CI")) FAIL() << "perf is missing: tools/setup.sh installs linux-perf";
        GTEST_SKIP() << "no perf (linux-perf) on this machine";
    }
};

using PerfJudge = NeedsPerf<Case>;

TEST_P(PerfJudge, ReadsEveryRecordRingsimWrote) {
    const Case c = GetParam();
    const std::string file = path_for(c, "stats");
    const auto r = run_ringsim(c.scenario, std::string(c.sets) + " --perf-data " + file);
    const json& t = r.stats.at("total");
    const auto perf = run_command_output("perf report --stats -i " + file);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    if (u(t, "perf_data.unparsed_bytes")) {
        // Corrupt copies: perf stops reading, and ringsim said it would.
        EXPECT_NE((perf.out + perf.err).find("failed to process sample"), std::string::npos)
            << perf.out << perf.err;
        const auto& errors = r.run.at("perf_report").at("errors");
        EXPECT_NE(std::find(errors.begin(), errors.end(), "failed to process sample"),
                  errors.end());
        std::filesystem::remove(file);
        return;
    }
    std::map<std::string, uint64_t> want = written_counts(r.stdout_text);
    ASSERT_FALSE(want.empty()) << r.stdout_text;
    std::map<std::string, uint64_t> got = perf_stats(perf.out);
    EXPECT_EQ(got["TOTAL"], u(t, "perf_data.events"));
    got.erase("TOTAL");
    EXPECT_EQ(got, want) << perf.out;
    // The writer's counts are ringsim's books': the checker's, which count a record copied
    // twice once (but samples_in_perf_data) and a record read wrong not at all.
    auto n = [&want](const char* type) { return want.count(type) ? want.at(type) : 0; };
    const bool clean = u(t, "violations.total") == 0;
    const bool once = clean && u(t, "records.duplicated") == 0;
    if (clean) {
        EXPECT_EQ(n("SAMPLE"), u(t, "records.samples_in_perf_data"));
    }
    if (once) {
        EXPECT_EQ(n("LOST"), u(t, "lost_records"));
    }
    EXPECT_EQ(n("LOST_SAMPLES"), u(t, "lost_samples_records"));
    EXPECT_EQ(n("FINISHED_ROUND"), u(t, "perf_data.finished_rounds"));
    if (t.contains("aux")) {
        if (once) {
            EXPECT_EQ(n("AUX"), u(t, "aux.records_delivered"));
        }
        if (clean) {
            EXPECT_GE(n("AUX"), u(t, "aux.records_delivered"));
        }
        EXPECT_EQ(n("AUXTRACE"), u(t, "aux.consumer.reads"));
        EXPECT_EQ(n("AUXTRACE_INFO"), 1u);
    }
    std::filesystem::remove(file);
}

TEST_P(PerfJudge, PrintsWhatRingsimPredicts) {
    const Case c = GetParam();
    const std::string file = path_for(c, "report");
    const auto r = run_ringsim(c.scenario, std::string(c.sets) + " --perf-data " + file);
    // --no-itrace: the records in the file, not samples synthesized from decoding the trace.
    const auto perf = run_command_output("perf report --stdio --no-itrace -i " + file);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    std::vector<std::string> want;
    for (const auto& line : r.run.at("perf_report").at("errors"))
        want.push_back(line);
    const std::vector<std::string> got = perf_report_lines(perf.err);
    if (u(r.stats.at("total"), "perf_data.unparsed_bytes")) {
        // perf's warnings then count only what it read before it stopped.
        EXPECT_NE(std::find(got.begin(), got.end(), "failed to process sample"), got.end());
    } else {
        for (const char* part : {"warnings", "after"})
            for (const auto& line : r.run.at("perf_report").at(part))
                want.push_back(line);
        EXPECT_EQ(got, want) << perf.err;
    }
    std::filesystem::remove(file);
}

TEST_P(PerfJudge, ScriptShowsTheSamplesAsWritten) {
    const Case c = GetParam();
    const std::string file = path_for(c, "script");
    const auto r = run_ringsim(c.scenario, std::string(c.sets) + " --perf-data " + file);
    if (u(r.stats.at("total"), "perf_data.unparsed_bytes")) GTEST_SKIP() << "corrupt copies";
    // The samples in the file, by ringsim's parser.
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    ASSERT_GE(bytes.size(), 104u);
    uint64_t data_off = 0, data_size = 0, attr_off = 0;
    std::memcpy(&attr_off, bytes.data() + 24, 8);
    std::memcpy(&data_off, bytes.data() + 40, 8);
    std::memcpy(&data_size, bytes.data() + 48, 8);
    perf_event_attr attr{};
    std::memcpy(&attr, bytes.data() + attr_off, sizeof attr);
    const uint64_t st = attr.sample_type;
    // Without PERIOD in the samples (cpu-clock's IP|TID|TIME), perf takes the attr's
    // sample_period (evsel__parse_sample): the -c the event was opened with.
    const bool has_period = st & PERF_SAMPLE_PERIOD;
    std::vector<Sample> want;
    for (uint64_t at = data_off; at < data_off + data_size;) {
        const auto h = ringsim::models::perf::parse_header(bytes.data() + at, 8);
        ASSERT_TRUE(h && h->size >= 8);
        if (h->type == PERF_RECORD_SAMPLE) {
            const auto rec = ringsim::models::perf::parse_record(bytes.data() + at, st, true);
            Sample s{(st & PERF_SAMPLE_CPU) ? rec.cpu : ~0u, rec.time_ns, 0};
            // PERIOD follows IDENTIFIER, IP, TID, TIME, ID, STREAM_ID and CPU (RAW after it).
            uint64_t off = 8;
            for (uint64_t bit :
                 {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
                  PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU})
                off += (st & bit) ? 8 : 0;
            if (has_period)
                std::memcpy(&s.period, bytes.data() + at + off, 8);
            else
                s.period = attr.sample_period;
            want.push_back(s);
        }
        uint64_t skip = h->size;
        if (h->type == ringsim::models::perf::kRecordAuxtrace) {
            uint64_t payload = 0;
            std::memcpy(&payload, bytes.data() + at + 8, 8);
            skip += payload;
        }
        at += skip;
    }
    EXPECT_EQ(want.size(), u(r.stats.at("total"), "records.samples_in_perf_data"));
    // perf script refuses a field the samples do not hold: cpu only where CPU is sampled.
    const std::string fields = (st & PERF_SAMPLE_CPU) ? "cpu,time,period" : "time,period";
    const auto perf = run_command_output("perf script --no-itrace -F " + fields + " -i " + file);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    // "[002]     0.000051:     100000": perf prints the time in µs, truncated.
    std::vector<Sample> got;
    // The CPU is -1 ("[-01]") when not sampled, or left out when not asked for.
    const std::regex row(R"(^\s*(?:\[(-?\d+)\]\s+)?(\d+)\.(\d{6}):\s+(\d+)\s*$)");
    for (const std::string& line : lines_of(perf.out)) {
        std::smatch s;
        ASSERT_TRUE(std::regex_match(line, s, row)) << line;
        got.push_back({s[1].matched ? uint32_t(std::stol(s[1])) : ~0u,
                       std::stoull(s[2]) * 1000000000ull + std::stoull(s[3]) * 1000ull,
                       std::stoull(s[4])});
    }
    for (Sample& s : want)
        s.time_ns -= s.time_ns % 1000;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got.size(), want.size());
    const auto diff = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
    if (diff.first != got.end() && diff.second != want.end())
        ADD_FAILURE() << "perf script: cpu " << diff.first->cpu << " time " << diff.first->time_ns
                      << " period " << diff.first->period << "; written: cpu " << diff.second->cpu
                      << " time " << diff.second->time_ns << " period " << diff.second->period;
    std::filesystem::remove(file);
}

// One trace ID's timestamps in perf report -D's packet dump: ringsim's counts.
struct IdTrace {
    bool have = false;
    uint64_t last = 0;
    bool sync_since = false;
};

TEST_P(PerfJudge, DecodesTheTraceWithGapsWhereRingsimSaysSo) {
    const Case c = GetParam();
    const std::string file = path_for(c, "decode");
    const auto r = run_ringsim(c.scenario, std::string(c.sets) + " --perf-data " + file);
    const json& t = r.stats.at("total");
    if (!t.contains("aux")) GTEST_SKIP() << "no AUX area";
    const auto perf = run_command_output("perf report -D -i " + file);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    // "Idx:24; ID:10;	I_TIMESTAMP : Timestamp.; Updated val = 0xd"
    const std::regex packet(R"(ID:([0-9a-f]+);\s+(I_[A-Z0-9_]+))");
    const std::regex value(R"(Updated val = 0x([0-9a-f]+))");
    std::map<std::string, IdTrace> ids;
    uint64_t gaps = 0, packets = 0, errors = 0, unsynced_gaps = 0;
    for (const std::string& line : lines_of(perf.out)) {
        std::smatch s;
        if (!std::regex_search(line, s, packet)) continue;
        ++packets;
        const std::string kind = s[2];
        IdTrace& id = ids[s[1]];
        if (kind == "I_ASYNC") id.sync_since = true;
        if (kind.find("BAD") != std::string::npos || kind.find("RESERVED") != std::string::npos ||
            kind.find("INCOMPLETE") != std::string::npos || kind.find("ERR") != std::string::npos)
            ++errors;
        if (kind != "I_TIMESTAMP") continue;
        std::smatch v;
        ASSERT_TRUE(std::regex_search(line, v, value)) << line;
        const uint64_t count = std::stoull(v[1], nullptr, 16);
        if (id.have && count != id.last + 1) {
            ++gaps;
            if (!id.sync_since) ++unsynced_gaps;
        }
        id.have = true;
        id.last = count;
        id.sync_since = false;
    }
    EXPECT_GT(packets, 0u) << "perf decoded no packet";
    if (u(t, "aux.violations.total")) {
        // Trace read before the driver wrote it or after it was overwritten: perf's
        // decoder trips over what ringsim reports read wrong.
        EXPECT_GT(errors + unsynced_gaps + (gaps > u(t, "aux.discontinuities")), 0u);
        std::filesystem::remove(file);
        return;
    }
    EXPECT_EQ(errors, 0u);
    EXPECT_EQ(unsynced_gaps, 0u) << "a gap perf saw did not resume at an A-Sync";
    // In the piped-mode fallback (cs_etm_queue.h) perf decodes every AUXTRACE buffer whole,
    // the trace of lost PERF_RECORD_AUX records too (D11 no longer hides it): at least the
    // discontinuities ringsim counts.
    const auto& said = r.run.at("perf_report").at("errors");
    const bool piped =
        std::find(said.begin(), said.end(),
                  "Continuing with best effort decoding in piped mode.") != said.end();
    if (piped) {
        EXPECT_GE(gaps, u(t, "aux.discontinuities"));
    } else {
        EXPECT_EQ(gaps, u(t, "aux.discontinuities"));
    }
    std::filesystem::remove(file);
}

const Case kCases[] = {
    Case{"scenarios/quickstart.json", ""},
    Case{"scenarios/slow-consumer.json", ""},
    Case{"scenarios/overwrite.json", ""},
    Case{"scenarios/nested-nmi.json", ""},
    Case{"scenarios/per-thread.json", ""},
    Case{"scenarios/demand-paging.json", ""},
    Case{"scenarios/aux-full.json", ""},
    Case{"scenarios/etr-per-thread.json", ""},
    Case{"scenarios/etr-system-wide.json", ""},
    Case{"scenarios/etr-wrap.json", ""},
    Case{"scenarios/snapshot.json", ""},
    // libperf's reader, and a per-thread AUX session sampling no CPU, as perf record
    // configures cs_etm --per-thread: perf 6.1 then finds every AUX record's trace.
    Case{"scenarios/slow-consumer.json", "--set consumer.reader=libperf"},
    Case{"scenarios/etr-per-thread.json",
         "--set 'session.sample_type=[\"ip\",\"tid\",\"time\",\"id\",\"period\"]'"},
    Case{"scenarios/teaching/no-A.json", ""},
    Case{"scenarios/teaching/no-B.json", ""},
    Case{"scenarios/teaching/no-C.json", ""},
    Case{"scenarios/teaching/no-D.json", ""},
    Case{"scenarios/teaching/no-A-D.json", ""},
    Case{"scenarios/teaching/no-B-C.json", ""},
    Case{"scenarios/teaching/d-rmb.json", ""},
    Case{"scenarios/teaching/d-wmb.json", ""},
    Case{"scenarios/teaching/matrix.json", ""},
    Case{"scenarios/teaching/torn.json", ""},
    Case{"scenarios/teaching/perf-acquire-release.json", ""},
    Case{"scenarios/teaching/aux-no-A.json", ""},
    Case{"scenarios/teaching/aux-no-B.json", ""},
    Case{"scenarios/teaching/aux-no-B-correct.json", ""},
    Case{"scenarios/teaching/aux-no-C.json", ""},
    Case{"scenarios/teaching/aux-no-C-correct.json", ""},
    Case{"scenarios/teaching/aux-no-D.json", ""},
    Case{"scenarios/teaching/aux-no-D-correct.json", ""},
    Case{"scenarios/teaching/readers.json", ""},
    Case{"scenarios/teaching/aya-0.13.json", ""},
    Case{"scenarios/teaching/aya.json", ""},
    Case{"scenarios/cpu-clock.json", ""},
};

INSTANTIATE_TEST_SUITE_P(Scenarios, PerfJudge, ::testing::ValuesIn(kCases),
                         [](const auto& param) { return "case" + std::to_string(param.index); });

// Variants no file shows: random sample_type, sample_id_all, reader and seed over the
// curated scenarios. Where perf would refuse the file (several events, no id), ringsim
// refuses --perf-data with exit 2; otherwise perf's counts and words are ringsim's.
struct Variant {
    std::string scenario, sets;
};

std::vector<Variant> variants() {
    std::mt19937_64 rng(20261202);
    const char* bases[] = {"quickstart",      "slow-consumer", "overwrite", "nested-nmi",
                           "per-thread",      "demand-paging", "aux-full",  "etr-per-thread",
                           "etr-system-wide", "etr-wrap",      "snapshot"};
    const char* fields[] = {"identifier", "ip", "tid", "time", "id", "stream_id", "cpu", "period"};
    std::vector<Variant> v;
    for (int i = 0; i < 24; ++i) {
        Variant x;
        x.scenario = std::string("scenarios/") + bases[rng() % std::size(bases)] + ".json";
        std::string st;
        for (const char* f : fields)
            if (rng() % 2) st += (st.empty() ? "\"" : ",\"") + std::string(f) + "\"";
        if (st.empty()) st = "\"ip\"";
        x.sets = "--set 'session.sample_type=[" + st +
                 "]' --set session.sample_id_all=" + (rng() % 4 ? "true" : "false") + " --seed " +
                 std::to_string(rng() % 1000);
        if (rng() % 3 == 0) x.sets += " --set consumer.reader=libperf";
        v.push_back(x);
    }
    return v;
}

using PerfJudgeVariants = NeedsPerf<Variant>;

TEST_P(PerfJudgeVariants, PerfAgreesOrRingsimRefuses) {
    const Variant& v = GetParam();
    const std::string dir = ::testing::TempDir() + "/perfvar-" + std::to_string(::getpid()) + "-" +
                            std::to_string(::testing::UnitTest::GetInstance()->random_seed());
    const std::string file = dir + ".data";
    const auto run =
        run_command_output(std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR + "/" +
                           v.scenario + " " + v.sets + " --out " + dir + " --perf-data " + file);
    if (run.exit_code == 2) {
        EXPECT_NE(run.err.find("non matching sample_type"), std::string::npos) << run.err;
        EXPECT_EQ(v.sets.find("\"id\""), std::string::npos);
        EXPECT_EQ(v.sets.find("\"identifier\""), std::string::npos);
        return;
    }
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::ifstream stats_in(dir + "/stats.json"), run_in(dir + "/run.json");
    const json stats = json::parse(stats_in), info = json::parse(run_in);
    std::filesystem::remove_all(dir);
    const auto perf = run_command_output("perf report --stats -i " + file);
    EXPECT_EQ(perf.exit_code, 0) << perf.err;
    const json& t = stats.at("total");
    if (!u(t, "perf_data.unparsed_bytes")) {
        std::map<std::string, uint64_t> got = perf_stats(perf.out);
        EXPECT_EQ(got["TOTAL"], u(t, "perf_data.events"));
        got.erase("TOTAL");
        EXPECT_EQ(got, written_counts(run.out)) << perf.out;
    }
    const auto report = run_command_output("perf report --stdio --no-itrace -i " + file);
    std::vector<std::string> want;
    for (const char* part : {"errors", "warnings", "after"})
        for (const auto& line : info.at("perf_report").at(part))
            want.push_back(line);
    const std::vector<std::string> said = perf_report_lines(report.err);
    if (u(t, "perf_data.unparsed_bytes")) {
        EXPECT_NE(std::find(said.begin(), said.end(), "failed to process sample"), said.end());
    } else {
        EXPECT_EQ(said, want) << report.err;
    }
    std::filesystem::remove(file);
}

void PrintTo(const Variant& v, std::ostream* os) {
    *os << v.scenario << " " << v.sets;
}

INSTANTIATE_TEST_SUITE_P(Generated, PerfJudgeVariants, ::testing::ValuesIn(variants()),
                         [](const auto& param) { return "variant" + std::to_string(param.index); });

// Every curated scenario is judged (a new one is not forgotten).
TEST(PerfJudgeCases, CoverEveryCuratedScenario) {
    for (const char* dir : {"scenarios", "scenarios/teaching"})
        for (const auto& e :
             std::filesystem::directory_iterator(std::string(RINGSIM_SOURCE_DIR) + "/" + dir)) {
            if (e.path().extension() != ".json") continue;
            const std::string name = std::string(dir) + "/" + e.path().filename().string();
            EXPECT_TRUE(std::any_of(std::begin(kCases), std::end(kCases),
                                    [&name](const Case& c) { return name == c.scenario; }))
                << name << " is not in kCases";
        }
}

} // namespace
