// tools/plot-timeline draws a run's --timeline with gnuplot (the tutorial's timeline
// pictures): a row per trace row that holds an operation, labelled with its name, the
// operations of the first violation in red, the same picture from the same run, and bad
// input refused with exit 2 and a message.
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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
    };
    for (const auto& [cmd, said] : cases) {
        const auto r = run_command_output(cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd;
        EXPECT_NE(r.err.find(said), std::string::npos) << cmd << "\n" << r.err;
    }
}

} // namespace
