// The scenario loader: every tests/config/bad/*.json fails with the messages of its .expect
// file; a minimal scenario gets every default; the effective config loads back to the same
// Scenario; --set overrides and the seed override behave as documented.
#include "platform/config/loader.h"
#include "platform/config/params.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ringsim::config {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kMinimal = R"({
  "description": "minimal",
  "workload": {"writers": [{"name": "w", "rate": "1kHz"}]}
})";

using Dist = models::TimeDistribution;
constexpr models::Picos kSecond = 1'000'000'000'000;

// A fixed time as the loader makes it: capped at its key's bound, 1 s for the consumer's.
Dist fixed_capped(models::Picos t) {
    Dist d(t);
    d.cap = kSecond;
    return d;
}

std::string joined(const LoadResult& r) {
    std::string out;
    for (const ConfigError& e : r.errors)
        out += e.message() + "\n";
    return out;
}

LoadResult load(const std::string& text, const std::vector<std::string>& sets = {},
                std::optional<uint64_t> seed = std::nullopt) {
    return load_scenario_json(text, sets, seed, "test.json");
}

std::vector<std::string> lines_of(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

// Field by field, so a failure names the field that did not survive.
void expect_same(const Scenario& a, const Scenario& b) {
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.duration_ps, b.duration_ps);
    EXPECT_EQ(a.cpus, b.cpus);
    EXPECT_EQ(a.deployment, b.deployment);
    EXPECT_EQ(a.traced_cpus, b.traced_cpus);
    EXPECT_EQ(a.page_size, b.page_size);
    EXPECT_EQ(a.data_pages, b.data_pages);
    EXPECT_EQ(a.overwrite, b.overwrite);
    EXPECT_EQ(a.write_backward, b.write_backward);
    EXPECT_EQ(a.wakeup_watermark, b.wakeup_watermark);
    EXPECT_EQ(a.wakeup_events, b.wakeup_events);
    EXPECT_EQ(a.sample_id_all, b.sample_id_all);
    EXPECT_EQ(a.sample_type, b.sample_type);
    ASSERT_EQ(a.pauses.size(), b.pauses.size());
    for (size_t i = 0; i < a.pauses.size(); ++i) {
        EXPECT_EQ(a.pauses[i].at_ps, b.pauses[i].at_ps);
        EXPECT_EQ(a.pauses[i].length_ps, b.pauses[i].length_ps);
    }
    EXPECT_EQ(a.migrate_every_ps, b.migrate_every_ps);
    EXPECT_EQ(a.aux.enabled, b.aux.enabled);
    EXPECT_EQ(a.aux.pages, b.aux.pages);
    EXPECT_EQ(a.aux.watermark, b.aux.watermark);
    EXPECT_EQ(a.aux.snapshot, b.aux.snapshot);
    EXPECT_EQ(a.aux.snapshot_size, b.aux.snapshot_size);
    EXPECT_EQ(a.aux.snapshot_at_ps, b.aux.snapshot_at_ps);
    EXPECT_EQ(a.switch_every_ps, b.switch_every_ps);
    EXPECT_EQ(a.switch_out_ps, b.switch_out_ps);
    EXPECT_EQ(a.irq_work_latency_ps, b.irq_work_latency_ps);
    EXPECT_EQ(a.ipi_latency_ps, b.ipi_latency_ps);
    EXPECT_EQ(a.aux_copy_bandwidth, b.aux_copy_bandwidth);
    EXPECT_EQ(a.trace.rate, b.trace.rate);
    ASSERT_EQ(a.trace.phases.size(), b.trace.phases.size());
    for (size_t i = 0; i < a.trace.phases.size(); ++i) {
        EXPECT_EQ(a.trace.phases[i].at_ps, b.trace.phases[i].at_ps);
        EXPECT_EQ(a.trace.phases[i].rate, b.trace.phases[i].rate);
    }
    EXPECT_EQ(a.trace.sync_period, b.trace.sync_period);
    EXPECT_EQ(a.etr.buffer_size, b.etr.buffer_size);
    EXPECT_EQ(a.etr.mode, b.etr.mode);
    EXPECT_EQ(a.etr.mem_bandwidth, b.etr.mem_bandwidth);
    EXPECT_EQ(a.etr.fifo_size, b.etr.fifo_size);
    EXPECT_EQ(a.etr.flush_latency_ps, b.etr.flush_latency_ps);
    EXPECT_EQ(a.etr.burst, b.etr.burst);
    EXPECT_EQ(a.etr.memerr_at_ps, b.etr.memerr_at_ps);
    EXPECT_EQ(a.consumer_cpu, b.consumer_cpu);
    EXPECT_EQ(a.reader, b.reader);
    EXPECT_EQ(a.wakeup_latency, b.wakeup_latency);
    EXPECT_EQ(a.per_record_cost, b.per_record_cost);
    EXPECT_EQ(a.lost_record_cost, b.lost_record_cost);
    EXPECT_EQ(a.tail_update, b.tail_update);
    EXPECT_EQ(a.copy_bandwidth, b.copy_bandwidth);
    EXPECT_EQ(a.write_bandwidth, b.write_bandwidth);
    EXPECT_EQ(a.poll_timeout_ps, b.poll_timeout_ps);
    EXPECT_EQ(a.mmap_flush, b.mmap_flush);
    EXPECT_EQ(a.snapshot_every_ps, b.snapshot_every_ps);
    ASSERT_EQ(a.writers.size(), b.writers.size());
    for (size_t i = 0; i < a.writers.size(); ++i) {
        const Writer &x = a.writers[i], &y = b.writers[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.record, y.record);
        EXPECT_EQ(x.context, y.context);
        EXPECT_EQ(x.rate_hz, y.rate_hz);
        EXPECT_EQ(x.arrival, y.arrival);
        EXPECT_EQ(x.size, y.size);
        EXPECT_EQ(x.write_time_ps, y.write_time_ps);
        EXPECT_EQ(x.burst_size, y.burst_size);
        EXPECT_EQ(x.burst_spacing_ps, y.burst_spacing_ps);
        EXPECT_EQ(x.start_ps, y.start_ps);
    }
}

TEST(BadScenarios, EachFailsWithItsExpectedMessages) {
    const fs::path dir = fs::path(RINGSIM_SOURCE_DIR) / "tests/config/bad";
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++files;
        const std::string name = entry.path().filename().string();
        fs::path expect = entry.path();
        expect.replace_extension(".expect");
        ASSERT_TRUE(fs::exists(expect)) << name << " has no .expect file";
        const LoadResult r = load_scenario_file(entry.path().string(), {}, std::nullopt);
        const std::string messages = joined(r);
        EXPECT_FALSE(r.errors.empty()) << name;
        EXPECT_FALSE(r.scenario.has_value()) << name;
        const auto expected = lines_of(expect);
        EXPECT_FALSE(expected.empty()) << name << ": empty .expect";
        for (const std::string& line : expected)
            EXPECT_NE(messages.find(line), std::string::npos)
                << name << ": missing\n  " << line << "\nin\n"
                << messages;
    }
    EXPECT_GE(files, 18u);
}

TEST(BadScenarios, EveryExpectHasItsScenario) {
    const fs::path dir = fs::path(RINGSIM_SOURCE_DIR) / "tests/config/bad";
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".expect") continue;
        fs::path json_file = entry.path();
        EXPECT_TRUE(fs::exists(json_file.replace_extension(".json"))) << entry.path();
    }
}

TEST(Loader, SeveralErrorsAreAllReportedInDocumentOrder) {
    const auto r = load(R"({
      "workload": {"writers": [{"name": "a", "rate": "x"}, {"name": "b"}, {}, {}, {}, {}, {},
                               {}, {}, {}, {"name": "k", "rate": "1"}]},
      "session": {"data_pages": 3, "zzz": 1},
      "seed": -4,
      "description": ""
    })");
    std::vector<std::string> pointers;
    for (const ConfigError& e : r.errors)
        pointers.push_back(e.pointer);
    ASSERT_GE(pointers.size(), 6u) << joined(r);
    EXPECT_EQ(pointers[0], "/description");
    EXPECT_EQ(pointers[1], "/seed");
    EXPECT_EQ(pointers[2], "/session/data_pages");
    EXPECT_EQ(pointers[3], "/session/zzz"); // unknown keys after the known ones
    EXPECT_EQ(pointers[4], "/workload/writers/0/rate");
    EXPECT_EQ(pointers[5], "/workload/writers/1/rate");
    EXPECT_EQ(pointers.back(), "/workload/writers/10/rate"); // 10 after 2, not after 1
    EXPECT_TRUE(std::is_sorted(pointers.begin() + 4, pointers.end() - 1));
}

TEST(Loader, MinimalScenarioGetsEveryDefault) {
    const LoadResult r = load(kMinimal);
    ASSERT_TRUE(r.errors.empty()) << joined(r);
    ASSERT_TRUE(r.scenario);
    const Scenario& s = *r.scenario;
    EXPECT_EQ(s.description, "minimal");
    EXPECT_EQ(s.seed, 1u);
    EXPECT_EQ(s.duration_ps, 10000000000u);
    EXPECT_EQ(s.cpus, 4u);
    EXPECT_EQ(s.deployment, Deployment::per_cpu);
    EXPECT_EQ(s.traced_cpus, (std::vector<unsigned>{0, 1, 2}));
    EXPECT_EQ(s.page_size, 4096u);
    EXPECT_EQ(s.data_pages, 8u);
    EXPECT_FALSE(s.overwrite);
    EXPECT_FALSE(s.write_backward);
    EXPECT_EQ(s.wakeup_watermark, 0u);
    EXPECT_EQ(s.wakeup_events, 0u);
    EXPECT_TRUE(s.sample_id_all);
    EXPECT_EQ(s.sample_type,
              (std::vector<std::string>{"ip", "tid", "time", "id", "cpu", "period"}));
    EXPECT_TRUE(s.pauses.empty());
    EXPECT_EQ(s.migrate_every_ps, 0u);
    EXPECT_FALSE(s.aux.enabled);
    EXPECT_EQ(s.aux.pages, 1024u);
    EXPECT_EQ(s.aux.watermark, 0u);
    EXPECT_FALSE(s.aux.snapshot);
    EXPECT_EQ(s.aux.snapshot_size, 0u);
    EXPECT_TRUE(s.aux.snapshot_at_ps.empty());
    EXPECT_EQ(s.switch_every_ps, 0u);
    EXPECT_EQ(s.switch_out_ps, 0u);
    EXPECT_EQ(s.irq_work_latency_ps, 2000000u);
    EXPECT_EQ(s.ipi_latency_ps, 1000000u);
    EXPECT_EQ(s.aux_copy_bandwidth, 4e9);
    EXPECT_EQ(s.trace.rate, 100e6);
    EXPECT_TRUE(s.trace.phases.empty());
    EXPECT_EQ(s.trace.sync_period, 512u);
    EXPECT_EQ(s.etr.buffer_size, 1u << 20);
    EXPECT_EQ(s.etr.mode, EtrMode::auto_);
    EXPECT_EQ(s.etr.mem_bandwidth, 2e9);
    EXPECT_EQ(s.etr.fifo_size, 4096u);
    EXPECT_EQ(s.etr.flush_latency_ps, 2000000u);
    EXPECT_EQ(s.etr.burst, 16384u);
    EXPECT_TRUE(s.etr.memerr_at_ps.empty());
    EXPECT_EQ(s.consumer_cpu, 3u);
    EXPECT_EQ(s.reader, Reader::push);
    EXPECT_EQ(s.wakeup_latency, fixed_capped(10000000u));
    EXPECT_EQ(s.per_record_cost, fixed_capped(50000u));
    EXPECT_EQ(s.lost_record_cost, s.per_record_cost); // derived: per_record_cost
    EXPECT_EQ(s.tail_update, TailUpdate::batch);      // derived: push reads in batches
    EXPECT_EQ(s.copy_bandwidth, 4e9);
    EXPECT_EQ(s.write_bandwidth, 1e9);
    EXPECT_EQ(s.poll_timeout_ps, 0u);
    EXPECT_EQ(s.mmap_flush, 1u);
    EXPECT_EQ(s.snapshot_every_ps, 0u);
    ASSERT_EQ(s.writers.size(), 1u);
    const Writer& w = s.writers[0];
    EXPECT_EQ(w.name, "w");
    EXPECT_EQ(w.record, RecordKind::sample);
    EXPECT_EQ(w.context, Context::nmi);
    EXPECT_EQ(w.rate_hz, 1000.0);
    EXPECT_EQ(w.arrival, Arrival::periodic);
    EXPECT_EQ(w.size, 64u);
    EXPECT_EQ(w.write_time_ps, 100000u);
    EXPECT_EQ(w.burst_size, 1u);
    EXPECT_EQ(w.burst_spacing_ps, 100000u);
    EXPECT_EQ(w.start_ps, 0u);
}

// consumer.tail_update follows the reader unless set: libperf's users consume after every
// event, perf record's push once per pass, and an overwrite mapping never stores a tail.
TEST(Loader, TailUpdateIsDerivedFromTheReader) {
    auto tail = [](const std::vector<std::string>& sets) {
        const LoadResult r = load(kMinimal, sets);
        EXPECT_TRUE(r.errors.empty()) << joined(r);
        return r.scenario ? r.scenario->tail_update : TailUpdate::batch;
    };
    EXPECT_EQ(tail({"consumer.reader=libperf"}), TailUpdate::per_record);
    EXPECT_EQ(tail({"consumer.reader=libperf", "session.overwrite=true"}), TailUpdate::batch);
    EXPECT_EQ(tail({"consumer.reader=libperf", "consumer.tail_update=batch"}), TailUpdate::batch);
    EXPECT_EQ(tail({"consumer.tail_update=per_record"}), TailUpdate::per_record);
    const LoadResult r =
        load(kMinimal, {R"(consumer.per_record_cost={"distribution":"exponential","mean":"2us"})",
                        "consumer.tail_update=per_record"});
    ASSERT_TRUE(r.scenario) << joined(r);
    EXPECT_EQ(r.scenario->per_record_cost.kind, Dist::Kind::exponential);
    EXPECT_EQ(r.scenario->per_record_cost.value, 2000000u);
    EXPECT_EQ(r.scenario->lost_record_cost, r.scenario->per_record_cost); // follows it
    EXPECT_EQ(r.effective["consumer"]["lost_record_cost"]["mean"], "2us");
}

// Every distributed time takes one form (issue 16): a time, or an exponential, lognormal or
// empirical object, whose times keep the key's bounds; the loader reads it into the model's
// TimeDistribution, capped at the key's upper bound.
TEST(Loader, DistributedTimesTakeOneForm) {
    auto dist = [](const std::string& value) {
        const LoadResult r = load(kMinimal, {"consumer.wakeup_latency=" + value});
        EXPECT_TRUE(r.errors.empty()) << value << ": " << joined(r);
        return r.scenario ? r.scenario->wakeup_latency : Dist{};
    };
    EXPECT_EQ(dist(R"("20us")"), fixed_capped(20000000u));
    const Dist e = dist(R"({"distribution":"exponential","mean":"100us"})");
    EXPECT_EQ(e.kind, Dist::Kind::exponential);
    EXPECT_EQ(e.value, 100000000u);
    EXPECT_EQ(e.cap, kSecond);
    const Dist l = dist(R"({"distribution":"lognormal","median":"50us","sigma":1.5})");
    EXPECT_EQ(l.kind, Dist::Kind::lognormal);
    EXPECT_EQ(l.value, 50000000u);
    EXPECT_EQ(l.sigma, 1.5);
    const Dist h =
        dist(R"({"distribution":"empirical","histogram":[["20us",3],["1ms",0],["3ms",1]]})");
    EXPECT_EQ(h.kind, Dist::Kind::empirical);
    EXPECT_EQ(h.times, (std::vector<models::Picos>{20000000u, 1000000000u, 3000000000u}));
    EXPECT_EQ(h.cumulative, (std::vector<uint64_t>{3, 3, 4}));
    EXPECT_DOUBLE_EQ(h.mean(), (3 * 20e6 + 3e9) / 4);
}

// Each mistake in a distribution is named at its own pointer, with what was expected.
TEST(Loader, DistributionMistakesAreNamedWhereTheyAre) {
    auto error = [](const std::string& value) {
        const LoadResult r = load(kMinimal, {"consumer.wakeup_latency=" + value});
        return joined(r);
    };
    EXPECT_EQ(error(R"({"distribution":"gamma","mean":"1us"})"),
              "/consumer/wakeup_latency/distribution: expected one of \"exponential\", "
              "\"lognormal\", \"empirical\" (a fixed time is written as the time itself, e.g. "
              "\"10us\"), found \"gamma\"\n");
    EXPECT_EQ(error(R"({"distribution":"exponential","mean":"2s"})"),
              "/consumer/wakeup_latency/mean: expected a time <= 1s, found \"2s\"\n");
    EXPECT_EQ(error(R"({"distribution":"exponential","median":"2us"})"),
              "/consumer/wakeup_latency/mean: expected a time with a unit (ps, ns, us, ms, s), "
              "e.g. \"250ns\", found nothing\n"
              "/consumer/wakeup_latency/median: expected one of the keys distribution, mean of "
              "an exponential distribution, found unknown key \"median\"\n");
    EXPECT_EQ(error(R"({"distribution":"lognormal","median":"2us","sigma":9})"),
              "/consumer/wakeup_latency/sigma: expected a number in 0..4 (the standard "
              "deviation of ln(time)), found 9\n");
    EXPECT_EQ(error(R"({"distribution":"empirical","histogram":[["2us",1],["1us",1]]})"),
              "/consumer/wakeup_latency/histogram/1/0: expected a time after 2us, the one "
              "before it (the bins are strictly increasing), found \"1us\"\n");
    EXPECT_EQ(error(R"({"distribution":"empirical","histogram":[["2us",0]]})"),
              "/consumer/wakeup_latency/histogram: expected some bin with a count above 0, "
              "found [[\"2us\",0]]\n");
    EXPECT_EQ(error(R"({"distribution":"empirical","histogram":[["2us",-1]]})"),
              "/consumer/wakeup_latency/histogram/0/1: expected a count: an integer in "
              "0..2^40, found -1\n");
    EXPECT_EQ(error(R"({"distribution":"empirical","file":"/nonexistent/h.csv"})"),
              "/consumer/wakeup_latency/file: expected a readable histogram file: one "
              "TIME,COUNT line per bin, e.g. 25us,120 (# starts a comment), at most 16MiB, "
              "found \"/nonexistent/h.csv\" (No such file or directory)\n");
    // Read as a scenario file is (read_regular_file): a directory or a device is refused
    // with what it is, never read without bound.
    EXPECT_EQ(error(R"({"distribution":"empirical","file":"/tmp"})"),
              "/consumer/wakeup_latency/file: expected a readable histogram file: one "
              "TIME,COUNT line per bin, e.g. 25us,120 (# starts a comment), at most 16MiB, "
              "found \"/tmp\" (a directory)\n");
    EXPECT_EQ(error(R"({"distribution":"empirical","file":"/dev/zero"})"),
              "/consumer/wakeup_latency/file: expected a readable histogram file: one "
              "TIME,COUNT line per bin, e.g. 25us,120 (# starts a comment), at most 16MiB, "
              "found \"/dev/zero\" (a character device)\n");
}

// An empirical histogram may live in a CSV file beside the scenario; the effective scenario
// holds it inline, so a sweep's workers need no file.
TEST(Loader, EmpiricalHistogramFileIsReadBesideTheScenario) {
    const std::string dir = ::testing::TempDir() + "ringsim_hist";
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir + "/lat.csv") << "# cyclictest, 1us bins\n20us,5\n\n40us,1\n";
        std::ofstream(dir + "/bad.csv") << "20us;5\n";
        std::ofstream(dir + "/s.json")
            << R"({"description": "d", "workload": {"writers": [{"name": "w", "rate": "1kHz"}]},)"
            << R"( "consumer": {"wakeup_latency": {"distribution": "empirical", "file": "lat.csv"}}})";
    }
    const LoadResult r = load_scenario_file(dir + "/s.json", {}, std::nullopt);
    ASSERT_TRUE(r.scenario) << joined(r);
    EXPECT_EQ(r.scenario->wakeup_latency.times, (std::vector<models::Picos>{20000000u, 40000000u}));
    EXPECT_EQ(r.scenario->wakeup_latency.cumulative, (std::vector<uint64_t>{5, 6}));
    EXPECT_EQ(r.effective["consumer"]["wakeup_latency"],
              json::parse(R"({"distribution":"empirical","histogram":[["20us",5],["40us",1]]})"));
    const LoadResult bad = load_scenario_file(
        dir + "/s.json",
        {R"(consumer.wakeup_latency={"distribution":"empirical","file":"bad.csv"})"}, std::nullopt);
    EXPECT_EQ(joined(bad),
              "/consumer/wakeup_latency/file: expected a readable histogram file: one "
              "TIME,COUNT line per bin, e.g. 25us,120 (# starts a comment), found \"bad.csv\" "
              "line 1: \"20us;5\"\n");
}

// R12: a cpu-clock writer samples from its hrtimer, in hard interrupt context, every
// max(period, 10us); its samples hold the sample_type's fields alone (32 bytes for IP, TID,
// TIME); a measured rate may be lower than the timer's, never higher.
TEST(Loader, CpuClockWritersFollowTheirHrtimer) {
    const std::string clock = R"({
      "description": "cpu-clock",
      "session": {"sample_type": ["ip", "tid", "time"]},
      "workload": {"writers": [{"name": "clock", "event": "cpu-clock", "period": "5us"}]}
    })";
    const LoadResult r = load(clock);
    ASSERT_TRUE(r.scenario) << joined(r);
    const Writer& w = r.scenario->writers[0];
    EXPECT_TRUE(w.cpu_clock);
    EXPECT_EQ(w.period_ps, 5000000u);
    EXPECT_EQ(w.rate_hz, 100000.0); // the 10us floor, not 1 / 5us
    EXPECT_EQ(w.context, Context::irq);
    EXPECT_EQ(w.size, 32u);
    EXPECT_EQ(r.effective["workload"]["writers"][0]["rate"], "100000Hz");
    const LoadResult measured = load(clock, {"workload.writers.0.rate=49945Hz"});
    ASSERT_TRUE(measured.scenario) << joined(measured);
    EXPECT_EQ(measured.scenario->writers[0].rate_hz, 49945.0);
    EXPECT_EQ(joined(load(clock, {"workload.writers.0.rate=100001Hz"})),
              "/workload/writers/0/rate: expected a frequency <= 100000Hz for event cpu-clock "
              "with period 5us (its hrtimer fires every max(period, 10us) and "
              "hrtimer_forward_now never catches up on missed periods), found \"100001Hz\"\n");
    // A pmu writer keeps its old defaults: NMI, 64 bytes.
    const LoadResult pmu = load(kMinimal);
    ASSERT_TRUE(pmu.scenario) << joined(pmu);
    EXPECT_FALSE(pmu.scenario->writers[0].cpu_clock);
    EXPECT_EQ(pmu.scenario->writers[0].context, Context::nmi);
    EXPECT_EQ(pmu.scenario->writers[0].size, 64u);
}

// per_record_cost_distribution became per_record_cost's own form: an old file is refused
// with the new spelling.
TEST(Loader, TheOldCostDistributionKeyIsRefusedWithTheNewForm) {
    const LoadResult r = load(R"({
      "description": "an old file",
      "consumer": {"per_record_cost_distribution": "exponential"},
      "workload": {"writers": [{"name": "w", "rate": "1kHz"}]}
    })");
    EXPECT_EQ(joined(r),
              "/consumer/per_record_cost_distribution: expected no such key: the distribution is "
              "now the form of consumer.per_record_cost itself, e.g. \"per_record_cost\": "
              "{\"distribution\": \"exponential\", \"mean\": \"1us\"} (lost_record_cost takes "
              "the same form; docs/scenario-reference.md), found \"exponential\"\n");
}

// The other projects' readers (models/user/readers.h) bring their own tail policy and their
// own (C) and (D), which a scenario may still switch.
TEST(Loader, ReadersBringTheirOwnTailAndBarriers) {
    using models::BarrierKind;
    struct Want {
        const char* reader;
        TailUpdate tail;
        BarrierKind c, d;
    };
    for (const Want& w :
         {Want{"push", TailUpdate::batch, BarrierKind::acquire, BarrierKind::release},
          Want{"libbpf", TailUpdate::batch, BarrierKind::mb, BarrierKind::mb},
          Want{"cilium-ebpf", TailUpdate::per_record, BarrierKind::acquire, BarrierKind::release},
          Want{"aya", TailUpdate::batch, BarrierKind::rmb, BarrierKind::mb},
          Want{"aya-0.13", TailUpdate::batch, BarrierKind::none, BarrierKind::mb}}) {
        const LoadResult r = load(kMinimal, {std::string("consumer.reader=") + w.reader});
        ASSERT_TRUE(r.scenario) << joined(r);
        EXPECT_EQ(r.scenario->tail_update, w.tail) << w.reader;
        EXPECT_EQ(r.scenario->data_barriers.c, w.c) << w.reader;
        EXPECT_EQ(r.scenario->data_barriers.d, w.d) << w.reader;
    }
    const LoadResult r = load(kMinimal, {"consumer.reader=aya-0.13", "barriers.data.C=acquire"});
    ASSERT_TRUE(r.scenario) << joined(r);
    EXPECT_EQ(r.scenario->data_barriers.c, BarrierKind::acquire);
    EXPECT_EQ(r.effective["barriers"]["data"]["C"], "acquire");
    EXPECT_EQ(r.effective["barriers"]["data"]["D"], "mb");
    // Only perf reads overwrite buffers.
    const LoadResult ow = load(kMinimal, {"consumer.reader=libbpf", "session.overwrite=true"});
    EXPECT_FALSE(ow.scenario);
    EXPECT_NE(joined(ow).find("/consumer/reader: expected \"push\" or \"libperf\" when "
                              "session.overwrite is true"),
              std::string::npos)
        << joined(ow);
}

TEST(Loader, EffectiveConfigHasEveryKey) {
    const LoadResult r = load(R"({
      "description": "with a pause window, a trace phase, a competitor and a cpu-clock writer",
      "session": {"pause": [{"at": "1ms", "length": "1ms"}]},
      "trace": {"phases": [{"at": "1ms", "rate": "1GB/s"}]},
      "consumer": {"competitors": [{"nice": 5}]},
      "workload": {"writers": [{"name": "c", "event": "cpu-clock", "period": "20us"},
                               {"name": "w", "rate": "1kHz"}]}
    })");
    ASSERT_TRUE(r.scenario) << joined(r);
    for (const Param& p : params()) {
        std::string pointer = p.path;
        for (size_t star; (star = pointer.find('*')) != std::string::npos;)
            pointer.replace(star, 1, "0");
        EXPECT_TRUE(r.effective.contains(json::json_pointer(pointer))) << pointer;
    }
    EXPECT_EQ(r.effective["session"]["cpus"], json::array({0, 1, 2}));
    EXPECT_EQ(r.effective["consumer"]["cpu"], 3);
    EXPECT_EQ(r.effective["duration"], "10ms");
}

TEST(Loader, EffectiveKeepsTheFilesOwnUnits) {
    const LoadResult r = load(R"({
      "description": "units as written",
      "duration": "0.5s",
      "session": {"page_size": "4096B", "wakeup_watermark": "0.5KiB"},
      "workload": {"writers": [{"name": "w", "rate": "0.5kHz"}]}
    })");
    // 0.5KiB is not a whole count: sizes take integers only.
    ASSERT_EQ(r.errors.size(), 1u) << joined(r);
    EXPECT_EQ(r.errors[0].pointer, "/session/wakeup_watermark");
    const LoadResult ok = load(r.effective.dump(), {"session.wakeup_watermark=512B"});
    ASSERT_TRUE(ok.scenario) << joined(ok);
    EXPECT_EQ(ok.effective["duration"], "0.5s");
    EXPECT_EQ(ok.effective["session"]["page_size"], "4096B");
    EXPECT_EQ(ok.scenario->duration_ps, 500000000000u);
    EXPECT_EQ(ok.scenario->writers[0].rate_hz, 500.0);
}

TEST(Loader, EffectiveConfigRoundTrips) {
    const LoadResult first = load(R"({
      "description": "everything away from its default",
      "seed": 77,
      "duration": "3ms",
      "platform": {"cpus": 8},
      "session": {
        "deployment": "per-thread", "cpus": [1, 3, 5], "page_size": "16KiB",
        "data_pages": 16, "overwrite": true, "write_backward": true,
        "wakeup_watermark": "0B", "wakeup_events": 3, "sample_id_all": false,
        "sample_type": ["identifier", "ip", "stream_id"],
        "pause": [{"at": "1ms", "length": "250us"}, {"at": "1.25ms", "length": "1us"}],
        "migrate_every": "500us",
        "aux": {"enabled": false, "pages": 64, "watermark": "256KiB", "snapshot": true,
                "snapshot_size": "512KiB", "snapshot_at": ["1ms", "2.5ms"]}
      },
      "kernel": {"irq_work_latency": "1.5us", "ipi_latency": "3us",
                 "aux_copy_bandwidth": "8GiB/s"},
      "trace": {"rate": "1GB/s", "sync_period": 256,
                "phases": [{"at": "0s", "rate": "0B/s"}, {"at": "1ms", "rate": "2GB/s"}]},
      "etr": {"buffer_size": "4MiB", "mode": "sg", "mem_bandwidth": "1GB/s",
              "fifo_size": "8KiB", "flush_latency": "5us", "burst": "64B",
              "memerr_at": ["1.5ms"]},
      "consumer": {"cpu": 0, "reader": "libperf", "wakeup_latency": "5us",
                   "per_record_cost": "20ns", "copy_bandwidth": "2GiB/s",
                   "write_bandwidth": "500MB/s", "poll_timeout": "100ms",
                   "mmap_flush": "4KiB", "snapshot_every": "1ms"},
      "workload": {"writers": [
        {"name": "s", "rate": "100kHz", "size": "4KiB", "context": "irq"},
        {"name": "sw", "record": "switch", "rate": "2kHz", "arrival": "bursty",
         "burst_size": 4, "burst_spacing": "1us", "start": "10us", "write_time": "1ns"},
        {"name": "c", "record": "comm", "rate": "10Hz", "arrival": "poisson",
         "context": "task"}
      ], "switch_every": "1ms", "switch_out": "100us"}
    })");
    ASSERT_TRUE(first.scenario) << joined(first);
    const LoadResult second = load(first.effective.dump(2));
    ASSERT_TRUE(second.scenario) << joined(second);
    expect_same(*first.scenario, *second.scenario);
    EXPECT_EQ(first.effective, second.effective);
    EXPECT_EQ(first.scenario->traced_cpus, (std::vector<unsigned>{1, 3, 5}));
    EXPECT_EQ(first.scenario->writers[1].record, RecordKind::switch_);
    EXPECT_EQ(first.scenario->copy_bandwidth, 2147483648.0);

    const LoadResult minimal = load(kMinimal);
    const LoadResult again = load(minimal.effective.dump());
    ASSERT_TRUE(again.scenario) << joined(again);
    expect_same(*minimal.scenario, *again.scenario);
}

TEST(Loader, AuxScenarioLoadsAndRoundTrips) {
    const LoadResult first = load(R"({
      "description": "the AUX path on, every AUX key away from its default",
      "session": {"page_size": "64KiB",
                  "aux": {"enabled": true, "pages": 16, "watermark": "512KiB", "snapshot": true,
                          "snapshot_size": "1MiB", "snapshot_at": ["1ms", "2500us"]}},
      "kernel": {"ipi_latency": "3us", "aux_copy_bandwidth": "8GiB/s"},
      "trace": {"rate": "1GB/s", "sync_period": 256,
                "phases": [{"at": "0s", "rate": "0B/s"}, {"at": "1ms", "rate": "2GB/s"}]},
      "etr": {"buffer_size": "4MiB", "mode": "flat", "mem_bandwidth": "1GB/s",
              "fifo_size": "8KiB", "flush_latency": "5us", "burst": "64B",
              "memerr_at": ["1.5ms", "3ms"]},
      "workload": {"writers": [{"name": "w", "rate": "1kHz"}],
                   "switch_every": "1ms", "switch_out": "100us"}
    })");
    ASSERT_TRUE(first.scenario) << joined(first);
    const Scenario& s = *first.scenario;
    EXPECT_TRUE(s.aux.enabled);
    EXPECT_EQ(s.aux.pages, 16u);
    EXPECT_EQ(s.aux.watermark, 512u * 1024);
    EXPECT_TRUE(s.aux.snapshot);
    EXPECT_EQ(s.aux.snapshot_size, 1u << 20);
    EXPECT_EQ(s.aux.snapshot_at_ps, (std::vector<uint64_t>{1000000000u, 2500000000u}));
    EXPECT_EQ(s.ipi_latency_ps, 3000000u);
    EXPECT_EQ(s.aux_copy_bandwidth, 8.0 * 1024 * 1024 * 1024);
    EXPECT_EQ(s.trace.rate, 1e9);
    ASSERT_EQ(s.trace.phases.size(), 2u);
    EXPECT_EQ(s.trace.phases[0].at_ps, 0u);
    EXPECT_EQ(s.trace.phases[0].rate, 0.0);
    EXPECT_EQ(s.trace.phases[1].at_ps, 1000000000u);
    EXPECT_EQ(s.trace.phases[1].rate, 2e9);
    EXPECT_EQ(s.trace.sync_period, 256u);
    EXPECT_EQ(s.etr.buffer_size, 4u << 20);
    EXPECT_EQ(s.etr.mode, EtrMode::flat);
    EXPECT_EQ(s.etr.mem_bandwidth, 1e9);
    EXPECT_EQ(s.etr.fifo_size, 8192u);
    EXPECT_EQ(s.etr.flush_latency_ps, 5000000u);
    EXPECT_EQ(s.etr.burst, 64u);
    EXPECT_EQ(s.etr.memerr_at_ps, (std::vector<uint64_t>{1500000000u, 3000000000u}));
    EXPECT_EQ(s.switch_every_ps, 1000000000u);
    EXPECT_EQ(s.switch_out_ps, 100000000u);
    const LoadResult second = load(first.effective.dump(2));
    ASSERT_TRUE(second.scenario) << joined(second);
    expect_same(*first.scenario, *second.scenario);
    EXPECT_EQ(first.effective, second.effective);
}

TEST(Loader, AuxKeysAreIgnoredWhileAuxIsOff) {
    // Off: the other AUX keys pass their own checks only, not the rules between them.
    const std::vector<std::string> sets = {
        "session.aux.pages=1048576", "session.aux.watermark=\"8GiB\"",
        "session.aux.snapshot_at=[\"1ms\"]", "session.overwrite=true"};
    const auto off = load(kMinimal, sets);
    ASSERT_TRUE(off.scenario) << joined(off);
    EXPECT_FALSE(off.scenario->aux.enabled);
    auto on_sets = sets;
    on_sets.push_back("session.aux.enabled=true");
    const auto on = load(kMinimal, on_sets);
    EXPECT_FALSE(on.scenario);
    std::vector<std::string> pointers;
    for (const ConfigError& e : on.errors)
        pointers.push_back(e.pointer);
    // The size of a too-large AUX area is reported once, not again through its watermark.
    EXPECT_EQ(pointers, (std::vector<std::string>{"/session/aux/enabled", "/session/aux/pages",
                                                  "/session/aux/snapshot_at"}))
        << joined(on);
}

TEST(Loader, AuxLimitsAtTheirEdges) {
    // 16 x 4KiB = 64KiB of AUX buffer.
    const std::vector<std::string> aux = {"session.aux.enabled=true", "session.aux.pages=16"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), aux.begin(), aux.end());
        return load(kMinimal, more);
    };
    // rb_alloc_aux takes any aux_watermark, uncapped.
    EXPECT_TRUE(with({"session.aux.watermark=65535B"}).scenario);
    EXPECT_TRUE(with({"session.aux.watermark=64KiB"}).scenario);
    EXPECT_TRUE(with({"session.aux.watermark=1GiB"}).scenario);
    EXPECT_TRUE(with({"session.aux.snapshot_size=64KiB"}).scenario);
    EXPECT_FALSE(with({"session.aux.snapshot_size=65537B"}).scenario);
    // 1GiB is the most ringsim maps: 2^18 pages of 4KiB, 2^14 of 64KiB.
    EXPECT_TRUE(load(kMinimal, {"session.aux.enabled=true", "session.aux.pages=262144"}).scenario);
    EXPECT_FALSE(load(kMinimal, {"session.aux.enabled=true", "session.aux.pages=524288"}).scenario);
    EXPECT_FALSE(load(kMinimal, {"session.aux.enabled=true", "session.aux.pages=32768",
                                 "session.page_size=64KiB"})
                     .scenario);
    EXPECT_TRUE(load(kMinimal, {"etr.burst=16B"}).scenario);
    EXPECT_FALSE(load(kMinimal, {"etr.burst=8B"}).scenario);
    EXPECT_FALSE(load(kMinimal, {"etr.buffer_size=2KiB"}).scenario);
    EXPECT_TRUE(load(kMinimal, {"etr.buffer_size=4KiB"}).scenario);
    EXPECT_TRUE(
        load(kMinimal, {"workload.switch_every=1ms", "workload.switch_out=999us"}).scenario);
}

TEST(Loader, TimeListsAreStrictlyIncreasing) {
    const auto ok = load(kMinimal, {"etr.memerr_at=[\"0s\",\"1ns\",\"2ms\"]"});
    ASSERT_TRUE(ok.scenario) << joined(ok);
    EXPECT_EQ(ok.scenario->etr.memerr_at_ps, (std::vector<uint64_t>{0u, 1000u, 2000000000u}));
    // An element of a time list can be --set like an element of any list.
    const auto appended = load(kMinimal, {"etr.memerr_at.0=1ms", "etr.memerr_at.1=2ms"});
    ASSERT_TRUE(appended.scenario) << joined(appended);
    EXPECT_EQ(appended.scenario->etr.memerr_at_ps,
              (std::vector<uint64_t>{1000000000u, 2000000000u}));
    const auto r = load(kMinimal, {"etr.memerr_at=[\"1ms\",\"1000us\",5,\"0.5ms\"]"});
    const std::string messages = joined(r);
    EXPECT_NE(messages.find("/etr/memerr_at/1: expected a time after 1ms, the one before it"),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find("/etr/memerr_at/2: expected a time with a unit"), std::string::npos)
        << messages;
    EXPECT_NE(messages.find("/etr/memerr_at/3: expected a time after 1ms"), std::string::npos)
        << messages;
    EXPECT_EQ(r.errors.size(), 3u) << messages;
    const auto not_a_list = load(kMinimal, {"etr.memerr_at=\"1ms\""});
    ASSERT_EQ(not_a_list.errors.size(), 1u) << joined(not_a_list);
    EXPECT_EQ(not_a_list.errors[0].message(),
              "/etr/memerr_at: expected a list of times, each a time with a unit (ps, ns, us, "
              "ms, s), e.g. \"250ns\", found \"1ms\"");
}

TEST(Loader, DerivedTracedCpus) {
    const auto system_wide = load(kMinimal, {"session.deployment=system-wide"});
    ASSERT_TRUE(system_wide.scenario) << joined(system_wide);
    EXPECT_EQ(system_wide.scenario->traced_cpus, (std::vector<unsigned>{0, 1, 2, 3}));
    const auto moved = load(kMinimal, {"consumer.cpu=1", "platform.cpus=3"});
    ASSERT_TRUE(moved.scenario) << joined(moved);
    EXPECT_EQ(moved.scenario->traced_cpus, (std::vector<unsigned>{0, 2}));
    const auto explicit_empty = load(kMinimal, {"session.cpus=[]"});
    ASSERT_TRUE(explicit_empty.scenario) << joined(explicit_empty);
    EXPECT_EQ(explicit_empty.scenario->traced_cpus, (std::vector<unsigned>{0, 1, 2}));
    const auto one_cpu = load(kMinimal, {"platform.cpus=1", "session.deployment=system-wide"});
    ASSERT_TRUE(one_cpu.scenario) << joined(one_cpu);
    EXPECT_EQ(one_cpu.scenario->traced_cpus, (std::vector<unsigned>{0}));
}

TEST(Loader, SetOverrides) {
    const auto r = load(kMinimal, {
                                      "session.data_pages=16",          // dotted
                                      "/platform/cpus=8",               // JSON pointer
                                      "workload.writers.0.rate=2.5kHz", // index, string
                                      "workload.writers[0].size=128B",  // bracket index
                                      "duration=5ms",                   // not JSON: a string
                                      "description=\"quoted\"",         // JSON string
                                      "session.sample_type=[\"ip\"]",   // JSON list
                                      "session.sample_type.1=\"time\"", // list element
                                      "workload.writers.1={\"name\":\"x\",\"rate\":\"1Hz\"}",
                                      "session.overwrite=true",
                                  });
    ASSERT_TRUE(r.scenario) << joined(r);
    EXPECT_EQ(r.scenario->data_pages, 16u);
    EXPECT_EQ(r.scenario->cpus, 8u);
    EXPECT_EQ(r.scenario->consumer_cpu, 7u);
    EXPECT_EQ(r.scenario->writers[0].rate_hz, 2500.0);
    EXPECT_EQ(r.scenario->writers[0].size, 128u);
    EXPECT_EQ(r.scenario->duration_ps, 5000000000u);
    EXPECT_EQ(r.scenario->description, "quoted");
    EXPECT_EQ(r.scenario->sample_type, (std::vector<std::string>{"ip", "time"}));
    ASSERT_EQ(r.scenario->writers.size(), 2u);
    EXPECT_EQ(r.scenario->writers[1].name, "x");
    EXPECT_TRUE(r.scenario->overwrite);
    EXPECT_EQ(r.effective["duration"], "5ms");
}

TEST(Loader, LaterSetWins) {
    const auto r = load(kMinimal, {"session.data_pages=16", "session.data_pages=32"});
    ASSERT_TRUE(r.scenario) << joined(r);
    EXPECT_EQ(r.scenario->data_pages, 32u);
}

TEST(Loader, SetValuesAreValidatedLikeTheFile) {
    const auto r = load(kMinimal, {"session.data_pages=6", "platform.cpus=\"4\""});
    EXPECT_FALSE(r.scenario);
    const std::string messages = joined(r);
    EXPECT_NE(messages.find("/platform/cpus: expected an integer in 1..64, found \"4\""),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find("/session/data_pages: expected a power of two"), std::string::npos);
}

TEST(Loader, BadSetPaths) {
    const auto r = load(kMinimal, {"session.data_page=16", "seed", "workload.writers.5.rate=1Hz",
                                   "workload.writers.0.colour=red", "=5"});
    EXPECT_FALSE(r.scenario);
    const std::string messages = joined(r);
    EXPECT_NE(messages.find("/session/data_page: expected one of the keys deployment, cpus, "),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find("found unknown key \"data_page\" (in --set session.data_page=16)"),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find("expected PATH=VALUE, found --set \"seed\""), std::string::npos)
        << messages;
    EXPECT_NE(messages.find("expected PATH=VALUE, found --set \"=5\""), std::string::npos)
        << messages;
    EXPECT_NE(messages.find("/workload/writers/5/rate: expected an index below 1, or 1 to "
                            "append, found 5"),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find("/workload/writers/0/colour: expected one of the keys name, record"),
              std::string::npos)
        << messages;
    EXPECT_EQ(r.errors.size(), 5u) << messages;
}

TEST(Loader, MalformedSetPathsAreRefusedNotGuessed) {
    // Each was once read as some other path: "[0.rate" as [0].rate, ".." as one dot.
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"workload.writers[0.rate", "an unclosed or non-numeric [index] at byte 16"},
        {"platform..cpus", "an empty key at byte 9"},
        {"platform.cpus.", "an empty key at byte 14"},
        {".seed", "no key before byte 0"},
        {"workload.writers[x].rate", "an unclosed or non-numeric [index] at byte 16"},
        {"workload.writers[0]rate", "a stray 'r' at byte 19"},
        {"session]data_pages", "a stray ']' at byte 7"},
    };
    for (const auto& [path, problem] : bad) {
        const auto r = load(kMinimal, {path + "=2"});
        ASSERT_EQ(r.errors.size(), 1u) << path << ": " << joined(r);
        EXPECT_EQ(r.errors[0].expected, kSetPathExpected) << path;
        EXPECT_EQ(r.errors[0].found, "\"" + path + "\": " + problem + " (in --set " + path + "=2)");
        EXPECT_EQ(set_path_problem(path), problem);
    }
    for (const char* good : {"seed", "workload.writers[0].rate", "workload.writers.0.rate",
                             "/workload/writers/0/rate", "etr.memerr_at[0]"})
        EXPECT_EQ(set_path_problem(good), std::nullopt) << good;
}

TEST(Loader, ErrorsEchoAtMostAFewHundredBytesOfTheInput) {
    // A 10 MB unknown key printed 20 MB to stderr (in the pointer and in the value found).
    const std::string key(10'000'000, 'k');
    const auto r = load("{\"" + key +
                        "\": 1, \"description\": \"d\", \"workload\": "
                        "{\"writers\": [{\"name\": \"w\", \"rate\": \"1kHz\"}]}}");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_LT(r.errors[0].message().size(), 1000u);
    EXPECT_NE(r.errors[0].pointer.find("... (10000001 bytes)"), std::string::npos);
    EXPECT_NE(r.errors[0].found.find(" bytes)"), std::string::npos);
    // And a name may not be longer than 4096 bytes.
    const auto name =
        load(kMinimal, {"workload.writers.0.name=\"" + std::string(4097, 'n') + "\""});
    ASSERT_EQ(name.errors.size(), 1u);
    EXPECT_EQ(name.errors[0].expected, "a non-empty string of at most 4096 bytes");
    EXPECT_TRUE(
        load(kMinimal, {"workload.writers.0.name=\"" + std::string(4096, 'n') + "\""}).scenario);
}

TEST(Loader, SeedOverrideWins) {
    const auto file_seed = load(kMinimal, {"seed=5"});
    ASSERT_TRUE(file_seed.scenario);
    EXPECT_EQ(file_seed.scenario->seed, 5u);
    const auto overridden = load(kMinimal, {"seed=5"}, 99);
    ASSERT_TRUE(overridden.scenario) << joined(overridden);
    EXPECT_EQ(overridden.scenario->seed, 99u);
    EXPECT_EQ(overridden.effective["seed"], 99);
    const auto huge = load(kMinimal, {}, UINT64_MAX);
    ASSERT_TRUE(huge.scenario) << joined(huge);
    EXPECT_EQ(huge.scenario->seed, UINT64_MAX);
}

TEST(Loader, MissingFile) {
    const auto r = load_scenario_file("/nonexistent/scenario.json", {}, std::nullopt);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message(),
              "expected a readable scenario file, found /nonexistent/scenario.json (No such "
              "file or directory)");
    const auto dir = load_scenario_file(RINGSIM_SOURCE_DIR, {}, std::nullopt);
    ASSERT_EQ(dir.errors.size(), 1u);
    EXPECT_EQ(dir.errors[0].message(), "expected a regular scenario file, found " +
                                           std::string(RINGSIM_SOURCE_DIR) + " (a directory)");
}

TEST(Loader, OnlyARegularFileOfBoundedSizeIsRead) {
    // /dev/zero would be read forever; a FIFO would block the open until a writer came.
    const auto zero = load_scenario_file("/dev/zero", {}, std::nullopt);
    ASSERT_EQ(zero.errors.size(), 1u);
    EXPECT_EQ(zero.errors[0].message(),
              "expected a regular scenario file, found /dev/zero (a character device)");
    const std::string fifo = ::testing::TempDir() + "/ringsim-fifo-" + std::to_string(getpid());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const auto from_fifo = load_scenario_file(fifo, {}, std::nullopt);
    std::remove(fifo.c_str());
    ASSERT_EQ(from_fifo.errors.size(), 1u);
    EXPECT_EQ(from_fifo.errors[0].message(),
              "expected a regular scenario file, found " + fifo + " (a FIFO)");
    // One byte over the limit (the file is sparse: nothing is written but its last byte).
    const std::string big = ::testing::TempDir() + "/ringsim-big-" + std::to_string(getpid());
    {
        std::ofstream out(big);
        out.seekp(std::streamoff(kMaxScenarioBytes));
        out.put(' ');
    }
    const auto too_big = load_scenario_file(big, {}, std::nullopt);
    std::remove(big.c_str());
    ASSERT_EQ(too_big.errors.size(), 1u);
    EXPECT_EQ(too_big.errors[0].message(),
              "expected a scenario file of at most 16MiB, found " + big + " (larger than that)");
}

TEST(Loader, ANulByteEndsNothingSilently) {
    // nlohmann's lexer takes NUL for the end of the input: what follows must not be ignored.
    const auto r = load(std::string(kMinimal) + std::string(1, '\0') + " garbage {{{");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].expected, "a JSON text without NUL bytes");
    EXPECT_EQ(r.errors[0].found,
              "test.json: a NUL byte at byte " + std::to_string(std::string(kMinimal).size()));
}

TEST(Loader, DeepNestingIsRefusedBeforeAnythingRecursesIntoIt) {
    // 100,000 levels crashed the error-message builder and fill_defaults by recursion.
    const std::string deep =
        "{\"workload\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto r = load(deep);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message(),
              "expected arrays and objects nested at most 32 deep, found test.json: deeper "
              "nesting at byte 44");
    // Brackets inside strings do not count, escaped quotes do not end them.
    const auto in_string = load("{\"description\": \"\\\"" + std::string(100, '[') +
                                "\", \"workload\": {\"writers\": [{\"name\": \"w\", "
                                "\"rate\": \"1kHz\"}]}}");
    EXPECT_TRUE(in_string.scenario) << joined(in_string);
    const auto set = load(kMinimal, {"platform=" + std::string(50000, '[')});
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_EQ(set.errors[0].message(),
              "/platform: expected arrays and objects nested at most 32 "
              "deep, found deeper nesting at byte 32 of the value (in --set)");
}

// Finds the error at `pointer`; fails the test when there is none.
const ConfigError* error_at(const LoadResult& r, const std::string& pointer) {
    for (const ConfigError& e : r.errors)
        if (e.pointer == pointer) return &e;
    ADD_FAILURE() << "no error at " << pointer << " in\n" << joined(r);
    return nullptr;
}

// What the error at `pointer` found; "(no error)" when there is none.
std::string found_at(const LoadResult& r, const std::string& pointer) {
    const ConfigError* e = error_at(r, pointer);
    return e != nullptr ? e->found : "(no error)";
}

TEST(Loader, ANumberNoDoubleHoldsIsReportedWhereItIsAndHidesNoOtherError) {
    // Issue 14: 1e400 stopped the parse and hid every other error in the file.
    const auto r = load("{\"seed\": 1, \"session\": {\"data_pages\": 1e400}, "
                        "\"platform\": {\"cpus\": [-1e999, 0]}, \"duration\": \"1xs\"}");
    if (const auto* e = error_at(r, "/session/data_pages")) {
        EXPECT_EQ(e->expected, "a number a double can hold");
        EXPECT_EQ(e->found, "1e400");
    }
    EXPECT_EQ(found_at(r, "/platform/cpus/0"), "-1e999");
    error_at(r, "/platform/cpus"); // an array where an integer belongs, reported too
    error_at(r, "/duration");      // after the number, still found
    error_at(r, "/description");   // and what is missing
    EXPECT_EQ(std::count_if(r.errors.begin(), r.errors.end(),
                            [](auto& e) { return e.pointer == "/session/data_pages"; }),
              1)
        << "the number stands as 0 for the parse and must not be reported again\n"
        << joined(r);
}

TEST(Loader, NumbersAreEchoedAsTyped) {
    // nlohmann keeps an integer beyond 64 bits as a double: 1.8446744073709552e+19.
    const auto r = load("{\"seed\": 18446744073709551616, \"platform\": {\"cpus\": 2.50}}");
    if (const auto* e = error_at(r, "/seed")) {
        EXPECT_EQ(e->expected, "an integer >= 0");
        EXPECT_EQ(e->found, "18446744073709551616");
    }
    EXPECT_EQ(found_at(r, "/platform/cpus"), "2.50");
    // A --set value as typed; a value it replaces no longer echoes the file's text.
    const auto set = load(kMinimal, {"seed=99999999999999999999999"});
    EXPECT_EQ(found_at(set, "/seed"), "99999999999999999999999");
    const auto replaced = load("{\"seed\": 1.50}", {"seed=true"});
    EXPECT_EQ(found_at(replaced, "/seed"), "true");
}

TEST(Loader, RatesBandwidthsAndTimesOutsideARealMachinesRangeAreRefused) {
    const std::pair<const char*, const char*> cases[] = {
        {"workload.writers.0.rate=1000GHz", "a frequency in 0.001Hz..100MHz"},
        {"consumer.copy_bandwidth=1B/s", "a bandwidth in 1MB/s..1000000GB/s"},
        {"kernel.page_fault=213s", "a time <= 1s"},
        {"duration=100000s", "a time > 0 and <= 86400s"},
        {"trace.rate=20GB/s", "a bandwidth > 0 and <= 10GB/s"},
    };
    for (const auto& [set, expected] : cases) {
        const auto r = load(kMinimal, {set});
        ASSERT_EQ(r.errors.size(), 1u) << set << "\n" << joined(r);
        EXPECT_EQ(r.errors[0].expected, expected) << set;
    }
}

TEST(Loader, MalformedJsonNamesThePlace) {
    const auto r = load("{\n  \"seed\": 1,\n  \"x\" 2\n}");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].pointer, "");
    EXPECT_EQ(r.errors[0].expected, "valid JSON");
    EXPECT_NE(r.errors[0].found.find("test.json: parse error at line 3, column"), std::string::npos)
        << r.errors[0].found;
}

TEST(Loader, ErrorMessageFormat) {
    const ConfigError e{"/session/data_pages", "an integer", "\"8\""};
    EXPECT_EQ(e.message(), "/session/data_pages: expected an integer, found \"8\"");
}

TEST(Loader, SampleSizeRulesFollowSampleType) {
    // Fixed part with identifier + ip: 8 + 16 = 24 bytes; 32 needs RAW, 24 is exact.
    for (const char* size : {"24B", "32B", "40B", "1KiB"}) {
        const auto r = load(kMinimal, {"session.sample_type=[\"identifier\",\"ip\"]",
                                       std::string("workload.writers.0.size=") + size});
        EXPECT_TRUE(r.scenario) << size << "\n" << joined(r);
    }
    for (const char* size : {"16B", "28B", "65536B"}) {
        const auto r = load(kMinimal, {"session.sample_type=[\"identifier\",\"ip\"]",
                                       std::string("workload.writers.0.size=") + size});
        EXPECT_FALSE(r.scenario) << size;
    }
    // Switch and comm records have their own sizes: the size key is not checked for them.
    const auto sw =
        load(kMinimal, {"workload.writers.0.record=switch", "workload.writers.0.size=12B"});
    EXPECT_TRUE(sw.scenario) << joined(sw);
}

// ring_buffer_init caps attr.wakeup_watermark at the buffer size (R6): any is accepted, and
// the model caps it (PerfBuffer), so the scenario keeps what the user asked for.
TEST(Loader, WatermarkAtOrAboveTheBufferIsTheKernelsToCap) {
    for (const char* mark : {"32767B", "32KiB", "1GiB"}) {
        const auto r = load(kMinimal, {std::string("session.wakeup_watermark=") + mark});
        ASSERT_TRUE(r.scenario) << mark << ": " << joined(r);
    }
}

// perf_event_open takes a record the buffer can never hold: every reservation fails (R1).
TEST(Loader, ARecordLargerThanTheBufferIsAccepted) {
    const auto r = load(kMinimal, {"session.data_pages=1", "workload.writers.0.size=4096B"});
    EXPECT_TRUE(r.scenario) << joined(r);
}

TEST(Loader, NoCrossRuleOnTopOfAnEarlierError) {
    // data_pages is wrong, so the watermark and sample-size rules that need the buffer size
    // stay silent instead of adding confusing second errors.
    const auto r = load(kMinimal, {"session.data_pages=3", "session.wakeup_watermark=1GiB"});
    ASSERT_EQ(r.errors.size(), 1u) << joined(r);
    EXPECT_EQ(r.errors[0].pointer, "/session/data_pages");
}

TEST(Loader, EveryDeclaredKeyReachesTheScenario) {
    // Every key of the table is read into the typed Scenario (a key only validated would be
    // a knob that does nothing), and a read of a key the table does not declare throws (a
    // typo in the loader cannot pass silently). A scenario with one element in every array.
    const LoadResult r = load(R"({
      "description": "every key",
      "session": {"aux": {"enabled": true, "snapshot": true, "snapshot_at": ["1ms"]},
                  "pause": [{"at": "1ms", "length": "1us"}]},
      "workload": {"writers": [{"name": "c", "event": "cpu-clock", "period": "20us"}]},
      "consumer": {"competitors": [{"nice": 5}]},
      "trace": {"phases": [{"at": "1ms", "rate": "1GB/s"}]},
      "etr": {"memerr_at": ["2ms"]}
    })");
    ASSERT_TRUE(r.scenario) << joined(r);
    std::vector<std::string> unread;
    for (const Param& p : params())
        if (p.kind != ParamKind::object && r.keys_read.count(p.path) == 0) unread.push_back(p.path);
    EXPECT_EQ(unread, std::vector<std::string>{});
}

TEST(Loader, EveryChoiceOfEveryEnumerationHasItsEnumerator) {
    // The table's choices and the loader's mapping to the models' enums must agree: a choice
    // without an enumerator would be a logic error, reported as a load error.
    const std::string aux = R"({"description": "choices", "session": {"aux": {"enabled": true}},
                                "workload": {"writers": [{"name": "w", "rate": "1kHz"}]}})";
    for (const Param& p : params()) {
        if (p.kind != ParamKind::enumeration) continue;
        const std::string path = p.path.find("/*/") != std::string::npos
                                     ? "workload.writers.0." + p.path.substr(p.path.rfind('/') + 1)
                                     : p.path;
        for (const std::string& choice : p.choices) {
            const LoadResult r = load(aux, {path + "=" + json(choice).dump()});
            EXPECT_EQ(joined(r).find("no enumerator"), std::string::npos)
                << p.path << " = " << choice << ": " << joined(r);
            EXPECT_EQ(joined(r).find("the loader reads"), std::string::npos) << joined(r);
        }
    }
}

} // namespace
} // namespace ringsim::config
