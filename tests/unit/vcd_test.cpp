// `ringsim run --vcd FILE [--vcd-window FROM:TO]` (platform/vcd.h): the dump of a lesson is
// well formed (declared signals, time only forward, every fill level head - tail), says what
// the lesson is about (the barrier switched off never fires), survives a round trip through
// GTKWave's own converters (vcd2fst, fst2vcd: every signal's changes the same), a window
// starts from the values the whole dump has there, and every lesson's saved GTKWave view
// (scenarios/teaching/*.gtkw) opens in GTKWave with each of its signals found.
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ringsim::testing_support::run_command;
using ringsim::testing_support::run_command_output;
using ringsim::testing_support::run_ringsim;

const std::string kSource = RINGSIM_SOURCE_DIR;

struct Change {
    uint64_t at = 0;
    uint64_t value = 0;
    bool operator==(const Change& o) const { return at == o.at && value == o.value; }
};

// A VCD as signals (full names, "top.cpu0.data_head") and their changes in file order;
// `initial` holds the $dumpvars values. Checks the grammar ringsim writes as it goes.
struct Dump {
    std::map<std::string, std::string> id_of; // full name -> id
    std::map<std::string, std::string> kind;  // full name -> wire / event
    std::map<std::string, std::vector<Change>> changes;
    std::map<std::string, uint64_t> initial;
    uint64_t first_time = 0, last_time = 0;
    size_t timestamps = 0;
};

Dump parse_vcd(const std::string& path) {
    Dump d;
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    std::vector<std::string> scopes;
    std::map<std::string, std::string> name_of; // id -> full name
    bool header = true, in_dumpvars = false, have_time = false;
    uint64_t now = 0;
    const std::regex var(R"(\$var (wire|event) (\d+) (\S+) (\S+)( \[63:0\])? \$end)");
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        if (header) {
            std::smatch m;
            if (line.rfind("$scope module ", 0) == 0) {
                scopes.push_back(line.substr(14, line.size() - 14 - 5));
            } else if (line == "$upscope $end") {
                EXPECT_FALSE(scopes.empty());
                if (!scopes.empty()) scopes.pop_back();
            } else if (std::regex_match(line, m, var)) {
                std::string full;
                for (const std::string& s : scopes)
                    full += s + ".";
                full += m[4].str();
                EXPECT_EQ(m[5].matched, m[2].str() == "64") << line;
                EXPECT_EQ(d.id_of.count(full), 0u) << "declared twice: " << full;
                d.id_of[full] = m[3].str();
                d.kind[full] = m[1].str();
                name_of[m[3].str()] = full;
            } else if (line == "$enddefinitions $end") {
                EXPECT_TRUE(scopes.empty());
                header = false;
            }
            continue;
        }
        if (line == "$dumpvars") {
            in_dumpvars = true;
            continue;
        }
        if (line == "$end") {
            in_dumpvars = false;
            continue;
        }
        if (line[0] == '#') {
            const uint64_t t = std::stoull(line.substr(1));
            if (have_time) {
                EXPECT_GT(t, now) << "time goes back or repeats at #" << t;
            } else {
                d.first_time = t;
            }
            now = t;
            have_time = true;
            d.last_time = t;
            ++d.timestamps;
            continue;
        }
        EXPECT_TRUE(have_time) << "a value before any time: " << line;
        std::string id;
        uint64_t value = 0;
        if (line[0] == 'b') {
            const size_t sp = line.find(' ');
            value = std::stoull(line.substr(1, sp - 1), nullptr, 2);
            id = line.substr(sp + 1);
        } else {
            EXPECT_TRUE(line[0] == '0' || line[0] == '1') << line;
            value = line[0] == '1';
            id = line.substr(1);
        }
        const auto it = name_of.find(id);
        if (it == name_of.end()) {
            ADD_FAILURE() << "undeclared id in: " << line;
            continue;
        }
        if (in_dumpvars)
            d.initial[it->second] = value;
        else
            d.changes[it->second].push_back({now, value});
    }
    return d;
}

std::string temp(const std::string& name) {
    return ::testing::TempDir() + "/vcd-" + std::to_string(::getpid()) + "-" + name;
}

// Requires a tool of GTKWave's (tools/setup.sh installs gtkwave and xvfb).
bool have(const std::string& tool) {
    if (run_command("command -v " + tool).exit_code == 0) return true;
    if (std::getenv("CI")) ADD_FAILURE() << tool << " is missing: tools/setup.sh installs it";
    return false;
}

// The value a signal has at t in a whole dump (its initial value before any change).
uint64_t value_at(const Dump& d, const std::string& name, uint64_t t) {
    uint64_t v = d.initial.count(name) ? d.initial.at(name) : 0;
    if (d.changes.count(name))
        for (const Change& c : d.changes.at(name))
            if (c.at <= t) v = c.value;
    return v;
}

// A signal as the viewer sees it: its value from each time on (the last written at that
// time; an unchanged value dropped), or an event's times. The same dump may be written in
// more than one way (an initial value then a change at the same time, or both merged).
std::vector<Change> history(const Dump& d, const std::string& name) {
    std::vector<Change> all;
    if (d.initial.count(name)) all.push_back({d.first_time, d.initial.at(name)});
    if (d.changes.count(name))
        all.insert(all.end(), d.changes.at(name).begin(), d.changes.at(name).end());
    const bool event = d.kind.at(name) == "event";
    std::vector<Change> out;
    for (const Change& c : all) {
        if (!out.empty() && out.back().at == c.at) {
            out.back() = c;
            continue;
        }
        if (!event && !out.empty() && out.back().value == c.value) continue;
        out.push_back(c);
    }
    if (!event) // an unchanged value after a merge
        out.erase(std::unique(out.begin(), out.end(),
                              [](const Change& x, const Change& y) { return x.value == y.value; }),
                  out.end());
    return out;
}

TEST(Vcd, ALessonsDumpIsWellFormedAndShowsItsBarrierOff) {
    const std::string vcd = temp("no-B.vcd");
    const auto with = run_ringsim("scenarios/teaching/no-B.json", "--vcd " + vcd);
    // The writer only listens: the run's statistics are what they are without it.
    EXPECT_EQ(with.stats, run_ringsim("scenarios/teaching/no-B.json").stats);
    EXPECT_NE(with.stdout_text.find("wrote the waveform"), std::string::npos);
    EXPECT_EQ(with.stdout_text.find("leaves out"), std::string::npos) << with.stdout_text;
    const Dump d = parse_vcd(vcd);
    for (const char* s :
         {"top.cpu0.data_head", "top.cpu0.data_tail", "top.cpu0.data_fill", "top.cpu0.wakeup",
          "top.consumer.reading", "top.consumer.asleep", "top.consumer.waking", "top.consumer.poll",
          "top.barriers.A", "top.barriers.B", "top.barriers.C", "top.barriers.D"})
        EXPECT_EQ(d.id_of.count(s), 1u) << s;
    EXPECT_EQ(d.id_of.count("top.etr.rwp"), 0u); // no AUX, no sink
    // The lesson switches (B) off: it never fires, its partner (C) does; records moved the
    // head and the consumer the tail; the consumer slept and was woken.
    EXPECT_EQ(d.changes.count("top.barriers.B"), 0u);
    EXPECT_GT(d.changes.at("top.barriers.C").size(), 10u);
    EXPECT_GT(d.changes.at("top.cpu0.data_head").size(), 10u);
    EXPECT_GT(d.changes.at("top.cpu0.data_tail").size(), 10u);
    EXPECT_GT(d.changes.at("top.cpu0.wakeup").size(), 0u);
    EXPECT_GT(d.changes.at("top.consumer.asleep").size(), 0u);
    // The fill level is head - tail at every time either moves.
    std::vector<uint64_t> times;
    for (const char* s : {"top.cpu0.data_head", "top.cpu0.data_tail"})
        for (const Change& c : d.changes.at(s))
            times.push_back(c.at);
    for (uint64_t t : times)
        EXPECT_EQ(value_at(d, "top.cpu0.data_fill", t),
                  value_at(d, "top.cpu0.data_head", t) - value_at(d, "top.cpu0.data_tail", t))
            << "at " << t;
    std::filesystem::remove(vcd);
}

TEST(Vcd, AnAuxLessonShowsTheEtrAndTheAuxWords) {
    const std::string vcd = temp("aux-no-B.vcd");
    run_ringsim("scenarios/teaching/aux-no-B.json", "--vcd " + vcd);
    const Dump d = parse_vcd(vcd);
    for (const char* s :
         {"top.task.aux_head", "top.task.aux_tail", "top.task.aux_fill", "top.etr.rwp",
          "top.etr.sts_full", "top.etr.sts_tmcready", "top.etr.sts_memerr"})
        EXPECT_EQ(d.id_of.count(s), 1u) << s;
    EXPECT_GT(d.changes.at("top.task.aux_head").size(), 0u);
    EXPECT_GT(d.changes.at("top.etr.rwp").size(), 0u);
    // Each harvest flushes and stops the ETR: TMCReady rises.
    EXPECT_GT(d.changes.at("top.etr.sts_tmcready").size(), 0u);
    std::filesystem::remove(vcd);
}

// Where perf never stores the tail (an overwrite data buffer, a snapshot AUX area), there is
// no fill level to show: head minus a tail that never moves would grow without bound.
TEST(Vcd, NoFillLevelWherePerfNeverReleasesSpace) {
    const std::string ow = temp("overwrite.vcd"), snap = temp("snapshot.vcd");
    run_ringsim("scenarios/overwrite.json", "--vcd " + ow);
    run_ringsim("scenarios/snapshot.json", "--vcd " + snap);
    const Dump o = parse_vcd(ow), s = parse_vcd(snap);
    auto any = [](const Dump& d, const std::string& part) {
        return std::any_of(d.id_of.begin(), d.id_of.end(), [&part](const auto& signal) {
            return signal.first.find(part) != std::string::npos;
        });
    };
    EXPECT_TRUE(any(o, ".data_head"));
    EXPECT_FALSE(any(o, "_fill"));
    EXPECT_TRUE(any(s, ".aux_head"));
    EXPECT_FALSE(any(s, ".aux_fill"));
    std::filesystem::remove(ow);
    std::filesystem::remove(snap);
}

TEST(Vcd, RoundTripsThroughGtkwavesConverters) {
    if (!have("vcd2fst") || !have("fst2vcd")) GTEST_SKIP() << "no gtkwave on this machine";
    const std::string vcd = temp("rt.vcd"), fst = temp("rt.fst"), back = temp("rt-back.vcd");
    run_ringsim("scenarios/teaching/aux-no-C.json", "--vcd " + vcd);
    ASSERT_EQ(run_command("vcd2fst " + vcd + " " + fst).exit_code, 0);
    const auto text = run_command_output("fst2vcd " + fst);
    ASSERT_EQ(text.exit_code, 0);
    std::ofstream(back) << text.out;
    const Dump a = parse_vcd(vcd), b = parse_vcd(back);
    ASSERT_FALSE(a.changes.empty());
    EXPECT_EQ(a.id_of.size(), b.id_of.size());
    for (const auto& [name, id] : a.id_of) {
        ASSERT_TRUE(b.id_of.count(name)) << name;
        EXPECT_EQ(history(b, name), history(a, name)) << name;
    }
    for (const std::string& f : {vcd, fst, back})
        std::filesystem::remove(f);
}

TEST(Vcd, AWindowStartsFromTheValuesTheWholeDumpHasThere) {
    const std::string whole = temp("whole.vcd"), part = temp("part.vcd");
    run_ringsim("scenarios/teaching/no-D.json", "--vcd " + whole);
    run_ringsim("scenarios/teaching/no-D.json", "--vcd " + part + " --vcd-window 2ms:3ms");
    const Dump w = parse_vcd(whole), p = parse_vcd(part);
    const uint64_t from = 2'000'000'000, to = 3'000'000'000;
    EXPECT_EQ(p.first_time, from);
    EXPECT_LE(p.last_time, to);
    ASSERT_FALSE(p.initial.empty());
    for (const auto& [name, v] : p.initial)
        EXPECT_EQ(v, value_at(w, name, from - 1)) << name;
    // Inside the window, the same changes as the whole dump's.
    size_t inside = 0;
    for (const auto& [name, changes] : w.changes) {
        std::vector<Change> expect;
        for (const Change& c : changes)
            if (c.at >= from && c.at <= to) expect.push_back(c);
        inside += expect.size();
        // A wire whose first change in the window repeats the initial value is not written.
        std::vector<Change> got =
            p.changes.count(name) ? p.changes.at(name) : std::vector<Change>{};
        if (w.kind.at(name) == "wire" && !expect.empty() && !got.empty() &&
            expect.front().at < got.front().at)
            expect.erase(expect.begin());
        EXPECT_EQ(got, expect) << name;
    }
    EXPECT_GT(inside, 0u);
    std::filesystem::remove(whole);
    std::filesystem::remove(part);
}

TEST(Vcd, BadWindowsAreBadInput) {
    const std::string bin = RINGSIM_BINARY, sc = kSource + "/scenarios/teaching/no-B.json";
    const auto no_file =
        run_command(bin + " run " + sc + " --out " + temp("o1") + " --vcd-window 1ms:2ms");
    EXPECT_EQ(no_file.exit_code, 2);
    EXPECT_NE(no_file.err.find("--vcd-window: needs --vcd FILE"), std::string::npos) << no_file.err;
    const auto reversed = run_command(bin + " run " + sc + " --out " + temp("o2") + " --vcd " +
                                      temp("x.vcd") + " --vcd-window 2ms:1ms");
    EXPECT_EQ(reversed.exit_code, 2);
    EXPECT_NE(reversed.err.find("--vcd-window: FROM is after TO"), std::string::npos)
        << reversed.err;
    const auto unwritable =
        run_command(bin + " run " + sc + " --out " + temp("o3") + " --vcd /nonexistent-dir/x.vcd");
    EXPECT_EQ(unwritable.exit_code, 2);
    EXPECT_NE(unwritable.err.find("cannot write the waveform"), std::string::npos)
        << unwritable.err;
}

// Every lesson has a view, and GTKWave, given the lesson's dump and the view, shows every
// signal the view names.
TEST(Vcd, EveryLessonsViewOpensInGtkwave) {
    std::vector<std::string> lessons;
    for (const auto& e : std::filesystem::directory_iterator(kSource + "/scenarios/teaching"))
        if (e.path().extension() == ".json") lessons.push_back(e.path().stem().string());
    ASSERT_FALSE(lessons.empty());
    const bool gtkwave = have("gtkwave") && have("xvfb-run");
    const std::string script = temp("traces.tcl");
    std::ofstream(script) << "set n [gtkwave::getTotalNumTraces]\nputs \"traces $n\"\n"
                             "gtkwave::/File/Quit\n";
    for (const std::string& l : lessons) {
        const std::string view = kSource + "/scenarios/teaching/" + l + ".gtkw";
        ASSERT_TRUE(std::filesystem::exists(view)) << view;
        std::ifstream in(view);
        std::vector<std::string> signals;
        for (std::string line; std::getline(in, line);)
            if (line.rfind("top.", 0) == 0) signals.push_back(line);
        ASSERT_FALSE(signals.empty()) << view;
        const std::string vcd = temp(l + ".vcd");
        run_ringsim("scenarios/teaching/" + l + ".json", "--vcd " + vcd);
        const Dump d = parse_vcd(vcd);
        for (std::string s : signals) {
            if (const size_t r = s.find("[63:0]"); r != std::string::npos) s.erase(r);
            EXPECT_EQ(d.id_of.count(s), 1u) << l << ": " << s;
        }
        if (gtkwave) {
            const auto shown = run_command_output("timeout 120 xvfb-run -a gtkwave -S " + script +
                                                  " " + vcd + " " + view);
            EXPECT_NE(shown.out.find("traces " + std::to_string(signals.size())), std::string::npos)
                << l << ":\n"
                << shown.out << shown.err;
        }
        std::filesystem::remove(vcd);
    }
}

} // namespace
