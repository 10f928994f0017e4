// tools/plot-timeline draws a run's --timeline with gnuplot (the tutorial's timeline
// pictures): a row per trace row that holds an operation, labelled with its name, the
// operations of the first violation in red, operations chosen by --mark on rows of their own
// named by their values, --only's filter, the same picture from the same run, and bad input
// refused with exit 2 and a message.
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ringsim::testing_support::run_command_output;

const std::string kSource = RINGSIM_SOURCE_DIR;
const std::string kTool = kSource + "/tools/plot-timeline";

std::string temp(const std::string& name) {
    return ::testing::TempDir() + "/plot-timeline-" + std::to_string(::getpid()) + "-" + name;
}

std::string read(const std::string& path) {
    std::stringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
}

// no-C's first violation, as the tutorial draws it.
struct NoC {
    std::string out = temp("out"), trace = temp("no-C.json");
    NoC() {
        const auto r =
            run_command_output(std::string(RINGSIM_BINARY) + " run " + kSource +
                               "/scenarios/teaching/no-C.json --out " + out + " --timeline " +
                               trace + " --timeline-window 1938us:1951us");
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
};

TEST(PlotTimeline, DrawsEveryRowAndTheViolationsOperationsInRed) {
    NoC run;
    const std::string pic = temp("pic");
    const auto r = run_command_output(kTool + " " + run.trace + " --violations " + run.out +
                                      "/violations.json --title T --out " + pic);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::file_size(pic + ".png") > 1000);
    const std::string svg = read(pic + ".svg");
    // The rows of both CPUs and the barriers' row are labelled.
    for (const char* row : {">cpu0<", ">cpu1<", ">cpu0 barriers<"})
        EXPECT_NE(svg.find(row), std::string::npos) << row;
    EXPECT_NE(svg.find("in the first violation"), std::string::npos);
    EXPECT_NE(svg.find("rgb(214,  39,  40)"), std::string::npos); // #d62728, the red
    // Without --violations nothing is red; with it, the same run gives the same picture.
    const std::string plain = temp("plain");
    ASSERT_EQ(run_command_output(kTool + " " + run.trace + " --out " + plain).exit_code, 0);
    EXPECT_EQ(read(plain + ".svg").find("in the first violation"), std::string::npos);
    const std::string again = temp("again");
    ASSERT_EQ(run_command_output(kTool + " " + run.trace + " --violations " + run.out +
                                 "/violations.json --title T --out " + again)
                  .exit_code,
              0);
    EXPECT_EQ(read(again + ".svg"), svg);
}

// The first of the trace's operations whose name holds `word`: "SEQ\tNAME\tVALUE\tKIND".
std::string first_op(const std::string& trace, const std::string& word) {
    const auto r = run_command_output(
        "jq -r '[.traceEvents[] | select(.ph == \"X\" and (.name | contains(\"" + word +
        "\")))][0] | \"\\(.args.seq)\\t\\(.name)\\t\\(.args.value)\\t\\(.args.kind)\"' " + trace);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string x; std::getline(s, x, '\t');)
        f.push_back(x);
    return f;
}

TEST(PlotTimeline, MarkedOperationsHaveRowsNamedByWhatTheyDidInTheOrderGiven) {
    NoC run;
    const auto store = fields(first_op(run.trace, "store cpu0 data_head"));
    const auto load = fields(first_op(run.trace, "load cpu0 data_head"));
    ASSERT_EQ(store.size(), 4u);
    ASSERT_EQ(load.size(), 4u);
    ASSERT_EQ(store[3], "store");
    const std::string pic = temp("marked");
    const auto r = run_command_output(kTool + " " + run.trace + " --mark " + load[0] + "," +
                                      store[0] + " --mark-title 'the pair' --out " + pic);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string svg = read(pic + ".svg");
    const std::string load_row = ">" + load[1] + " reads " + load[2] + "<";
    const std::string store_row = ">" + store[1] + " writes " + store[2] + "<";
    const size_t at_load = svg.find(load_row), at_store = svg.find(store_row);
    ASSERT_NE(at_load, std::string::npos) << load_row;
    ASSERT_NE(at_store, std::string::npos) << store_row;
    // --mark's order, top to bottom; gnuplot writes the tics' names bottom up.
    EXPECT_GT(at_load, at_store);
    EXPECT_NE(svg.find("the pair"), std::string::npos);
    EXPECT_EQ(svg.find("in the first violation"), std::string::npos);
    // Reversed, the rows are too.
    const std::string rev = temp("reversed");
    ASSERT_EQ(run_command_output(kTool + " " + run.trace + " --mark " + store[0] + "," + load[0] +
                                 " --out " + rev)
                  .exit_code,
              0);
    const std::string rsvg = read(rev + ".svg");
    EXPECT_GT(rsvg.find(store_row), rsvg.find(load_row));
}

TEST(PlotTimeline, OnlyKeepsTheOperationsWhoseNameHoldsAWord) {
    NoC run;
    const std::string all = temp("all"), some = temp("some");
    ASSERT_EQ(run_command_output(kTool + " " + run.trace + " --out " + all).exit_code, 0);
    // The window's one store-release is the consumer's data_tail store, on a cpu1 row: the
    // kernel's operations (cpu0) go, its barrier instants stay.
    ASSERT_EQ(run_command_output(kTool + " " + run.trace + " --only store-release --out " + some)
                  .exit_code,
              0);
    const std::string full = read(all + ".svg"), kept = read(some + ".svg");
    for (const char* row : {">cpu0<", ">cpu0 overlap 1<"}) {
        EXPECT_NE(full.find(row), std::string::npos) << row;
        EXPECT_EQ(kept.find(row), std::string::npos) << row;
    }
    EXPECT_NE(kept.find(">cpu0 barriers<"), std::string::npos);
    EXPECT_NE(kept.find(">cpu1"), std::string::npos);
}

TEST(PlotTimeline, BadInputIsExit2WithAMessage) {
    const std::string notrace = temp("not-a-trace.json");
    std::ofstream(notrace) << "{\"x\": 1}";
    const std::string empty = temp("empty.json");
    std::ofstream(empty) << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}";
    const std::pair<std::string, std::string> cases[] = {
        {kTool + " /nonexistent.json --out " + temp("a"), "cannot read /nonexistent.json"},
        {kTool + " " + notrace + " --out " + temp("b"), "is not a ringsim timeline"},
        {kTool + " " + empty + " --out " + temp("c"), "holds no operation"},
        {kTool + " " + empty + " --bogus x --out " + temp("d"), "unknown argument '--bogus'"},
        {kTool + " " + empty + " --violations /nonexistent --out " + temp("e"),
         "cannot read /nonexistent"},
        {kTool + " " + empty + " --violations " + empty + " --mark 1 --out " + temp("f"),
         "--violations and --mark cannot be given together"},
        {kTool + " " + empty + " --mark 1,x --out " + temp("g"),
         "--mark expects sequence numbers separated by commas (13,84), found '1,x'"},
        {kTool + " " + empty + " --mark-title T --out " + temp("h"), "--mark-title needs --mark"},
        {kTool + " " + empty + " --mark 7 --out " + temp("i"), "no operation numbered 7"},
    };
    for (const auto& [cmd, said] : cases) {
        const auto r = run_command_output(cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd;
        EXPECT_NE(r.err.find(said), std::string::npos) << cmd << "\n" << r.err;
    }
}

} // namespace
