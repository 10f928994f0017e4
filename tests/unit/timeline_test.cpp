// The --timeline trace: first a TimelineWriter fed hand-made OpRecords, its file parsed back
// to check the slices, instants, counters, arrows, lanes and the window; then `ringsim run
// --timeline` end to end, including that the run itself is unchanged by it.
#include "platform/timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <sys/wait.h>

using namespace ringsim::platform;
using nlohmann::json;
using ringsim::models::Barrier;
using ringsim::models::OpKind;
using ringsim::models::OpRecord;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kHead0 = 0x80000400, kTail0 = 0x80000408;

OpRecord op(uint64_t seq, unsigned agent, OpKind kind, uint64_t addr, uint64_t size, uint64_t issue,
            uint64_t perform, uint64_t value = 0, uint64_t source = 0,
            Barrier label = Barrier::none) {
    OpRecord r;
    r.seq = seq;
    r.agent = agent;
    r.kind = kind;
    r.addr = addr;
    r.size = size;
    r.issue = issue;
    r.perform = perform;
    r.value = value;
    r.source = source;
    r.label = label;
    return r;
}

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Empty when equal, else where two texts part, briefly: whole files make unreadable failures.
std::string difference(const std::string& a, const std::string& b) {
    if (a == b) return "";
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
        ++at;
    const size_t from = at > 60 ? at - 60 : 0;
    return "differ at byte " + std::to_string(at) + ":\n  " + a.substr(from, 120) + "\n  " +
           b.substr(from, 120);
}

// Events of one phase, in file order.
std::vector<json> phase(const json& trace, const std::string& ph) {
    std::vector<json> out;
    for (const json& e : trace.at("traceEvents"))
        if (e.at("ph") == ph) out.push_back(e);
    return out;
}

// The memory operation's slice (MMU slices, category "mmu", have no seq).
json slice_of(const json& trace, uint64_t seq) {
    for (const json& e : phase(trace, "X"))
        if (e.at("args").contains("seq") && e.at("args").at("seq") == seq) return e;
    return nullptr;
}

std::map<int, std::string> thread_names(const json& trace) {
    std::map<int, std::string> names;
    for (const json& e : phase(trace, "M"))
        if (e.at("name") == "thread_name") names[e.at("tid")] = e.at("args").at("name");
    return names;
}

class TimelineTest : public testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "timeline_test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir = pattern;
    }
    void TearDown() override { fs::remove_all(dir); }

    // Writes `ops` through a TimelineWriter and parses the file back.
    json write(const std::vector<OpRecord>& ops, TimelineWindow window = {},
               const std::string& name = "t.json") {
        const fs::path file = dir / name;
        TimelineWriter w(file.string(), window, {"cpu0", "cpu1"}, {{"cpu0", kHead0, kTail0}});
        EXPECT_TRUE(w.ok());
        for (const OpRecord& o : ops)
            w.on_op(o);
        EXPECT_TRUE(w.close());
        return json::parse(slurp(file)); // throws, failing the test, on invalid JSON
    }

    fs::path dir;
};

TEST_F(TimelineTest, AnEmptyRunIsAValidTraceWithItsProcess) {
    const json t = write({});
    EXPECT_EQ(t.at("displayTimeUnit"), "ns");
    ASSERT_EQ(t.at("traceEvents").size(), 1u);
    EXPECT_EQ(t["traceEvents"][0]["name"], "process_name");
    EXPECT_EQ(t["traceEvents"][0]["pid"], 1);
}

TEST_F(TimelineTest, OperationsAreSlicesFromIssueToPerformInMicroseconds) {
    const json t = write({op(7, 0, OpKind::store, 0x80001040, 64, 1000500, 1250001, 0xabc),
                          op(9, 1, OpKind::load, 0x80001040, 64, 2000000, 2100000, 0xabc)});
    const json s = slice_of(t, 7);
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["name"], "store 64B @0x80001040 #7");
    EXPECT_EQ(s["pid"], 1);
    EXPECT_DOUBLE_EQ(s["ts"].get<double>(), 1.0005);
    EXPECT_DOUBLE_EQ(s["dur"].get<double>(), 0.249501);
    EXPECT_EQ(s["args"]["address"], "0x80001040");
    EXPECT_EQ(s["args"]["size"], 64);
    EXPECT_EQ(s["args"]["issue_ps"], 1000500);
    EXPECT_EQ(s["args"]["perform_ps"], 1250001);
    EXPECT_EQ(s["args"]["value"], "0xabc");
    EXPECT_EQ(s["args"]["label"], "none");
    EXPECT_EQ(s["args"]["kind"], "store");

    const json l = slice_of(t, 9);
    EXPECT_EQ(l["name"], "load 64B @0x80001040 #9");
    EXPECT_EQ(l["args"]["source"], 0);
    EXPECT_FALSE(l["args"].contains("early"));
    // One track per agent, named after it.
    const auto names = thread_names(t);
    EXPECT_EQ(names.at(s["tid"]), "cpu0");
    EXPECT_EQ(names.at(l["tid"]), "cpu1");
}

TEST_F(TimelineTest, AnEarlyLoadSpansFromPerformToIssueAndSaysSo) {
    const json t = write({op(3, 1, OpKind::load, 0x1000, 8, 5000000, 3000000)});
    const json l = slice_of(t, 3);
    EXPECT_DOUBLE_EQ(l["ts"].get<double>(), 3.0);
    EXPECT_DOUBLE_EQ(l["dur"].get<double>(), 2.0);
    EXPECT_EQ(l["args"]["early"], true);
}

TEST_F(TimelineTest, ControlWordsAreNamedAndTheirStoresAreCounters) {
    const json t =
        write({op(1, 0, OpKind::store, kHead0, 8, 100000, 150000, 448),
               op(2, 1, OpKind::load_acquire, kHead0, 8, 200000, 210000, 448, 1, Barrier::C),
               op(3, 1, OpKind::store_release, kTail0, 8, 300000, 320000, 448, 0, Barrier::D),
               op(4, 0, OpKind::store, 0x80001000, 8, 400000, 400000, 5)});
    EXPECT_EQ(slice_of(t, 1)["name"], "store cpu0 data_head #1");
    EXPECT_EQ(slice_of(t, 2)["name"], "load-acquire cpu0 data_head #2");
    EXPECT_EQ(slice_of(t, 3)["name"], "store-release cpu0 data_tail #3");
    const auto counters = phase(t, "C");
    ASSERT_EQ(counters.size(), 2u); // the plain store at 0x80001000 is no counter
    EXPECT_EQ(counters[0]["name"], "cpu0 data_head");
    EXPECT_DOUBLE_EQ(counters[0]["ts"].get<double>(), 0.15); // at perform, not issue
    EXPECT_EQ(counters[0]["args"]["value"], 448);
    EXPECT_EQ(counters[1]["name"], "cpu0 data_tail");
    EXPECT_DOUBLE_EQ(counters[1]["ts"].get<double>(), 0.32);
}

TEST_F(TimelineTest, BarriersAreInstantsNamedByTheirLabel) {
    const json t =
        write({op(1, 0, OpKind::store, 0x2000, 64, 1000, 1500),
               op(2, 0, OpKind::fence_wmb, 0, 0, 2000, 2000, 0, 0, Barrier::B),
               op(3, 1, OpKind::load_acquire, kHead0, 8, 3000, 4000, 0, 0, Barrier::C),
               op(4, 1, OpKind::fence_mb, 0, 0, 5000, 5000), // a fence without a label
               op(5, 1, OpKind::store_release, kTail0, 8, 6000, 6500, 0, 0, Barrier::D)});
    const auto instants = phase(t, "i");
    ASSERT_EQ(instants.size(), 4u); // the plain store executes no barrier
    std::vector<std::string> names;
    for (const json& i : instants) {
        names.push_back(i["name"]);
        EXPECT_EQ(i["s"], "t");
        EXPECT_EQ(thread_names(t).at(i["tid"]),
                  i["tid"] == instants[0]["tid"] ? "cpu0 barriers" : "cpu1 barriers");
    }
    EXPECT_EQ(names, (std::vector<std::string>{"(B) wmb", "(C) acquire", "mb", "(D) release"}));
    EXPECT_DOUBLE_EQ(instants[0]["ts"].get<double>(), 0.002);
    EXPECT_DOUBLE_EQ(instants[1]["ts"].get<double>(), 0.003); // acquire: at its issue
    EXPECT_EQ(phase(t, "X").size(), 3u);                      // fences are no slices
}

TEST_F(TimelineTest, AnArrowLeadsFromTheStoreToEachLoadThatReadIt) {
    const json t = write({op(1, 0, OpKind::store, kHead0, 8, 100000, 180000, 64),
                          op(2, 1, OpKind::load, kHead0, 8, 200000, 170000, 0, 0),
                          op(3, 1, OpKind::load, kHead0, 8, 300000, 310000, 64, 1),
                          op(4, 1, OpKind::load, kHead0, 8, 400000, 420000, 64, 1),
                          op(5, 1, OpKind::load, kHead0, 8, 500000, 520000, 64, 99)});
    const auto starts = phase(t, "s");
    const auto ends = phase(t, "f");
    ASSERT_EQ(starts.size(), 2u); // load 2 read plain memory; load 5's store is unknown
    ASSERT_EQ(ends.size(), 2u);
    const uint64_t loads[] = {3, 4};
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(starts[k]["id"], loads[k]);
        EXPECT_EQ(ends[k]["id"], loads[k]);
        EXPECT_EQ(starts[k]["name"], ends[k]["name"]);
        EXPECT_EQ(starts[k]["cat"], ends[k]["cat"]);
        EXPECT_EQ(starts[k]["tid"], slice_of(t, 1)["tid"]);
        EXPECT_DOUBLE_EQ(starts[k]["ts"].get<double>(), 0.18); // the store performs
        EXPECT_EQ(ends[k]["tid"], slice_of(t, loads[k])["tid"]);
        EXPECT_EQ(ends[k]["bp"], "e");
        EXPECT_DOUBLE_EQ(ends[k]["ts"].get<double>(),
                         slice_of(t, loads[k])["args"]["perform_ps"].get<double>() / 1e6);
    }
}

TEST_F(TimelineTest, OverlappingOperationsOfOneAgentGetTheirOwnTracks) {
    // Perfetto drops a slice that partially overlaps another on its track.
    const json t = write({op(1, 0, OpKind::store, 0x2000, 64, 0, 100000),
                          op(2, 0, OpKind::store, 0x2040, 64, 50000, 150000),
                          op(3, 0, OpKind::load, 0x3000, 8, 60000, 70000),
                          op(4, 0, OpKind::store, 0x2080, 64, 200000, 250000)});
    const auto names = thread_names(t);
    const int t1 = slice_of(t, 1)["tid"], t2 = slice_of(t, 2)["tid"];
    const int t3 = slice_of(t, 3)["tid"], t4 = slice_of(t, 4)["tid"];
    EXPECT_NE(t1, t2);
    EXPECT_NE(t3, t1);
    EXPECT_NE(t3, t2);
    EXPECT_EQ(t4, t1); // later and apart: back on the agent's first track
    EXPECT_EQ(names.at(t1), "cpu0");
    EXPECT_EQ(names.at(t2), "cpu0 overlap 1");
    EXPECT_EQ(names.at(t3), "cpu0 overlap 2");
}

TEST_F(TimelineTest, SlicesOnATrackStayTwoNanosecondsApart) {
    // Perfetto rounds to whole nanoseconds: touching slices would overlap after rounding.
    const json t = write({op(1, 0, OpKind::store, 0x2000, 8, 0, 10000),
                          op(2, 0, OpKind::store, 0x2008, 8, 11000, 20000),
                          op(3, 0, OpKind::store, 0x2010, 8, 22000, 30000)});
    EXPECT_NE(slice_of(t, 1)["tid"], slice_of(t, 2)["tid"]);
    EXPECT_EQ(slice_of(t, 1)["tid"], slice_of(t, 3)["tid"]);
}

TEST_F(TimelineTest, TheWindowKeepsWhatMeetsIt) {
    TimelineWindow w;
    w.from = 1000000;
    w.to = 2000000;
    const json t = write({op(1, 0, OpKind::store, kHead0, 8, 100000, 200000, 1),     // before
                          op(2, 0, OpKind::store, kHead0, 8, 900000, 1100000, 2),    // straddles
                          op(3, 0, OpKind::fence_wmb, 0, 0, 1500000, 1500000),       // inside
                          op(4, 1, OpKind::load, kHead0, 8, 1600000, 1700000, 1, 1), // from 1
                          op(5, 1, OpKind::load, kHead0, 8, 1800000, 1900000, 2, 2), // from 2
                          op(6, 0, OpKind::store, kHead0, 8, 2500000, 2600000, 3),   // after
                          op(7, 0, OpKind::fence_wmb, 0, 0, 2500000, 2500000)},      // after
                         w);
    std::set<uint64_t> seqs;
    for (const json& e : phase(t, "X"))
        seqs.insert(e["args"]["seq"].get<uint64_t>());
    EXPECT_EQ(seqs, (std::set<uint64_t>{2, 4, 5}));
    EXPECT_EQ(phase(t, "i").size(), 1u);
    ASSERT_EQ(phase(t, "C").size(), 1u);
    EXPECT_EQ(phase(t, "C")[0]["args"]["value"], 2);
    // Only load 5's store is in the file: load 4's arrow would start from nothing.
    ASSERT_EQ(phase(t, "s").size(), 1u);
    EXPECT_EQ(phase(t, "s")[0]["id"], 5);
}

TEST_F(TimelineTest, SameOperationsGiveTheSameBytes) {
    std::vector<OpRecord> ops;
    for (uint64_t i = 1; i <= 200; ++i)
        ops.push_back(op(i, unsigned(i % 2), i % 3 ? OpKind::store : OpKind::load,
                         0x1000 + 8 * (i % 7), 8, i * 1777, i * 1777 + (i * 7919) % 50000, i,
                         i % 3 ? 0 : i - 1));
    write(ops, {}, "a.json");
    write(ops, {}, "b.json");
    EXPECT_EQ(slurp(dir / "a.json"), slurp(dir / "b.json"));
}

TEST_F(TimelineTest, NamesAreEscapedAndLateOperationsIgnored) {
    const fs::path file = dir / "q.json";
    TimelineWriter w(file.string(), {}, {"a \"quoted\"\\agent"}, {});
    w.on_op(op(1, 0, OpKind::store, 0x10, 8, 0, 0));
    w.on_op(op(2, 3, OpKind::store, 0x10, 8, 0, 0)); // an agent without a name
    ASSERT_TRUE(w.close());
    w.on_op(op(3, 0, OpKind::store, 0x10, 8, 0, 0));
    EXPECT_TRUE(w.close());
    const json t = json::parse(slurp(file));
    const auto names = thread_names(t);
    EXPECT_EQ(names.at(slice_of(t, 1)["tid"]), "a \"quoted\"\\agent");
    EXPECT_EQ(names.at(slice_of(t, 2)["tid"]), "agent3");
    EXPECT_TRUE(slice_of(t, 3).is_null());
}

TEST_F(TimelineTest, AnUnwritableFileIsReported) {
    TimelineWriter w((dir / "no" / "such" / "dir.json").string(), {}, {}, {});
    EXPECT_FALSE(w.ok());
    EXPECT_FALSE(w.close());
}

TEST(TimelineWindow, ParsesTwoTimesEitherOpen) {
    std::string error;
    auto w = parse_timeline_window("1ms:1.2ms", error);
    ASSERT_TRUE(w) << error;
    EXPECT_EQ(w->from, 1000000000u);
    EXPECT_EQ(w->to, 1200000000u);
    w = parse_timeline_window("250ns:", error);
    ASSERT_TRUE(w) << error;
    EXPECT_EQ(w->from, 250000u);
    EXPECT_EQ(w->to, TimelineWindow{}.to);
    w = parse_timeline_window(":3us", error);
    ASSERT_TRUE(w) << error;
    EXPECT_EQ(w->from, 0u);
    EXPECT_EQ(w->to, 3000000u);
}

TEST(TimelineWindow, RejectsWhatIsNotAWindow) {
    for (const char* bad : {"1ms", "1ms:2ms:3ms", "1:2", "1ms:2xs", "2ms:1ms", ""}) {
        std::string error;
        EXPECT_FALSE(parse_timeline_window(bad, error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
}

// `ringsim run ... --timeline F` end to end.
class TimelineRun : public TimelineTest {
protected:
    // Runs ringsim with `args`; returns its exit code. Output goes to dir/log.txt.
    int ringsim(const std::string& args) {
        const std::string cmd =
            std::string(RINGSIM_BINARY) + " " + args + " > " + (dir / "log.txt").string() + " 2>&1";
        const int status = std::system(cmd.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::string run_args(const std::string& scenario, const std::string& out) {
        return "run " + std::string(RINGSIM_SOURCE_DIR) + "/scenarios/" + scenario + " --out " +
               (dir / out).string();
    }
    static std::string quickstart() { return "quickstart.json --set memory.model=arm"; }
};

TEST_F(TimelineRun, QuickstartOnArmGivesAPerfettoTrace) {
    const fs::path f = dir / "q.json";
    ASSERT_EQ(ringsim(run_args(quickstart(), "out") + " --timeline " + f.string()), 0)
        << slurp(dir / "log.txt");
    const json t = json::parse(slurp(f));
    EXPECT_EQ(t.at("displayTimeUnit"), "ns");
    std::set<std::string> names;
    for (const auto& [tid, name] : thread_names(t))
        names.insert(name);
    for (const char* agent : {"cpu0", "cpu1", "cpu2", "cpu3", "cpu3 barriers"})
        EXPECT_TRUE(names.count(agent)) << agent;

    // Slices per track never overlap, even rounded to whole nanoseconds as Perfetto does.
    std::map<int, std::vector<std::pair<long long, long long>>> tracks;
    for (const json& e : phase(t, "X")) {
        const long long ts = std::llround(e["ts"].get<double>() * 1000);
        tracks[e["tid"]].push_back({ts, ts + std::llround(e["dur"].get<double>() * 1000)});
    }
    ASSERT_FALSE(tracks.empty());
    for (auto& [tid, spans] : tracks) {
        std::sort(spans.begin(), spans.end());
        for (size_t k = 1; k < spans.size(); ++k)
            EXPECT_GT(spans[k].first, spans[k - 1].second) << "track " << tid;
    }

    // Every data_head counter of a buffer only grows: the producer publishes in order.
    std::map<std::string, std::vector<std::pair<double, uint64_t>>> counters;
    for (const json& c : phase(t, "C"))
        counters[c["name"]].push_back({c["ts"], c["args"]["value"].get<uint64_t>()});
    for (const char* c : {"cpu0 data_head", "cpu1 data_head", "cpu2 data_head"}) {
        auto& samples = counters[c];
        ASSERT_FALSE(samples.empty()) << c;
        std::sort(samples.begin(), samples.end());
        for (size_t k = 1; k < samples.size(); ++k)
            EXPECT_GE(samples[k].second, samples[k - 1].second) << c;
    }
    EXPECT_FALSE(phase(t, "i").empty());
    EXPECT_EQ(phase(t, "s").size(), phase(t, "f").size());
}

TEST_F(TimelineRun, AuxControlWordsAreNamedAndCountedToo) {
    // The AUX lesson's window: the driver's aux_head store, perf's aux_head load and aux_tail
    // store are named after the words, and aux_head's counter only grows.
    const fs::path f = dir / "aux.json";
    ASSERT_EQ(ringsim(run_args("teaching/aux-no-B.json", "out") + " --timeline " + f.string() +
                      " --timeline-window :200us"),
              0)
        << slurp(dir / "log.txt");
    const json t = json::parse(slurp(f));
    std::map<std::string, size_t> named;
    for (const json& e : phase(t, "X"))
        for (const char* w : {"store task aux_head #", "load task aux_head #",
                              "store-release task aux_tail #", "store task aux_tail #"})
            if (e["name"].get<std::string>().rfind(w, 0) == 0) ++named[w];
    EXPECT_GT(named["store task aux_head #"], 0u);
    EXPECT_GT(named["load task aux_head #"], 0u);
    EXPECT_GT(named["store-release task aux_tail #"] + named["store task aux_tail #"], 0u);
    std::vector<std::pair<double, uint64_t>> head;
    for (const json& c : phase(t, "C"))
        if (c["name"] == "task aux_head") head.push_back({c["ts"], c["args"]["value"]});
    ASSERT_GT(head.size(), 1u);
    std::sort(head.begin(), head.end());
    for (size_t k = 1; k < head.size(); ++k)
        EXPECT_GE(head[k].second, head[k - 1].second);
}

TEST_F(TimelineRun, ScDrawsReadsFromArrowsToo) {
    // Under sc stores go straight to memory; the loads still name the stores they read.
    const fs::path f = dir / "sc.json";
    ASSERT_EQ(ringsim(run_args("quickstart.json --set memory.model=sc", "out") + " --timeline " +
                      f.string()),
              0)
        << slurp(dir / "log.txt");
    const json t = json::parse(slurp(f));
    EXPECT_GT(phase(t, "s").size(), 100u);
    EXPECT_EQ(phase(t, "s").size(), phase(t, "f").size());
}

TEST_F(TimelineRun, TheRunIsTheSameWithOrWithoutATimeline) {
    ASSERT_EQ(ringsim(run_args(quickstart(), "plain")), 0);
    ASSERT_EQ(ringsim(run_args(quickstart(), "a") + " --timeline " + (dir / "a.json").string()), 0);
    ASSERT_EQ(ringsim(run_args(quickstart(), "b") + " --timeline " + (dir / "b.json").string()), 0);
    for (const char* f : {"stats.json", "violations.json"})
        EXPECT_EQ(difference(slurp(dir / "plain" / f), slurp(dir / "a" / f)), "") << f;
    EXPECT_EQ(difference(slurp(dir / "a.json"), slurp(dir / "b.json")), ""); // same bytes
}

TEST_F(TimelineRun, ViolationsAreTheSameWithOrWithoutATimeline) {
    // A run with violations and fences: the seq numbers its explanations cite must not move.
    const std::string s = "teaching/no-A-D.json";
    ASSERT_EQ(ringsim(run_args(s, "plain")), 0);
    ASSERT_EQ(ringsim(run_args(s, "t") + " --timeline " + (dir / "t.json").string()), 0);
    for (const char* f : {"stats.json", "violations.json"})
        EXPECT_EQ(difference(slurp(dir / "plain" / f), slurp(dir / "t" / f)), "") << f;
}

TEST_F(TimelineRun, TheOperationsAViolationCitesAreInTheTimeline) {
    // docs/timeline.md: find the operations of violations.json by their seq.
    const std::string s = "teaching/no-A-D.json";
    ASSERT_EQ(ringsim(run_args(s, "out") + " --timeline " + (dir / "t.json").string()), 0);
    const json v = json::parse(slurp(dir / "out" / "violations.json"));
    ASSERT_FALSE(v.at("violations").empty()) << "the lesson shows no violation any more";
    const std::string story = v["violations"][0]["explanation"];
    const json t = json::parse(slurp(dir / "t.json"));
    const std::regex cited("(store|load) #([0-9]+)");
    int found = 0;
    for (auto it = std::sregex_iterator(story.begin(), story.end(), cited);
         it != std::sregex_iterator(); ++it, ++found) {
        const json e = slice_of(t, std::stoull((*it)[2]));
        ASSERT_FALSE(e.is_null()) << (*it)[0];
        EXPECT_NE(e["name"].get<std::string>().find("#" + (*it)[2].str()), std::string::npos);
        EXPECT_NE(e["args"]["kind"].get<std::string>().find((*it)[1].str()), std::string::npos);
    }
    EXPECT_GE(found, 2) << story;
}

TEST_F(TimelineRun, PageFaultsAreSlicesOnTheConsumersTrack) {
    // Lazy mapping (M1): every first touch faults; each fault is an "mmu" slice of the
    // configured cost on the consumer CPU's track.
    ASSERT_EQ(ringsim(run_args(quickstart(), "out") + " --set session.mapping=lazy" +
                      " --set kernel.page_fault=3us --timeline " + (dir / "f.json").string()),
              0);
    const json t = json::parse(slurp(dir / "f.json"));
    const json stats = json::parse(slurp(dir / "out" / "stats.json"));
    uint64_t faults = 0;
    for (const json& e : phase(t, "X")) {
        if (e.at("cat") != "mmu") continue;
        const uint64_t n = e.at("args").at("faults").get<uint64_t>();
        faults += n;
        EXPECT_EQ(e.at("args").at("cost_ps").get<uint64_t>(),
                  n * 3'000'000 + e.at("args").at("tlb_misses").get<uint64_t>() * 30'000);
    }
    EXPECT_EQ(faults, stats.at("total").at("mmu").at("page_faults").get<uint64_t>());
    EXPECT_EQ(faults, 30u); // 3 buffers x (control page read + its mkwrite + 8 data pages)
}

TEST_F(TimelineRun, TheWindowLimitsTheTrace) {
    ASSERT_EQ(ringsim(run_args(quickstart(), "out") + " --timeline " + (dir / "w.json").string() +
                      " --timeline-window 1ms:1.2ms"),
              0);
    const json t = json::parse(slurp(dir / "w.json"));
    ASSERT_FALSE(phase(t, "X").empty());
    for (const json& e : phase(t, "X")) {
        EXPECT_LE(e["ts"].get<double>(), 1200.0);
        EXPECT_GE(e["ts"].get<double>() + e["dur"].get<double>(), 1000.0);
    }
}

TEST_F(TimelineRun, ABadWindowIsABadFlag) {
    const std::string timeline = " --timeline " + (dir / "t.json").string();
    EXPECT_EQ(ringsim(run_args(quickstart(), "out") + timeline + " --timeline-window 1ms"), 2);
    EXPECT_NE(slurp(dir / "log.txt").find("--timeline-window"), std::string::npos);
    EXPECT_EQ(ringsim(run_args(quickstart(), "out") + timeline + " --timeline-window 2ms:1ms"), 2);
    EXPECT_EQ(ringsim(run_args(quickstart(), "out") + " --timeline-window 1ms:2ms"), 2);
    EXPECT_EQ(ringsim(run_args(quickstart(), "out") + " --timeline " +
                      (dir / "missing" / "t.json").string()),
              2);
}

} // namespace
