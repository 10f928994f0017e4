// `ringsim lesson` (platform/lessons.h): every teaching scenario but the matrices' stress tests
// is a lesson, built into the binary exactly as the file reads; each lesson, run with its
// seed, shows the violation kinds its table names and no other, says so and exits 0, and is
// the same run as `ringsim run` of its file with that seed; bad requests are exit 2.
#include "platform/lessons.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

using ringsim::platform::find_lesson;
using ringsim::platform::lessons;
using ringsim::platform::teaching_scenarios;
using ringsim::testing_support::run_command;
using ringsim::testing_support::run_command_output;
using ringsim::testing_support::run_ringsim;

const std::string kSource = RINGSIM_SOURCE_DIR;
const std::string kBinary = RINGSIM_BINARY;

std::string read(const std::filesystem::path& p) {
    std::stringstream s;
    s << std::ifstream(p).rdbuf();
    return s.str();
}

TEST(Lesson, EveryTeachingScenarioButTheMatrixIsOneAndBuiltInAsWritten) {
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(kSource + "/scenarios/teaching"))
        if (e.path().extension() == ".json") files.insert(e.path().stem().string());
    std::set<std::string> built_in;
    for (const auto& s : teaching_scenarios()) {
        built_in.insert(s.name);
        EXPECT_EQ(std::string(s.text), read(kSource + "/scenarios/teaching/" + s.name + ".json"))
            << s.name << " is built in as an older text: rebuild";
    }
    EXPECT_EQ(built_in, files);
    std::set<std::string> named;
    for (const auto& l : lessons())
        named.insert(l.name);
    files.erase("matrix");
    files.erase("readers"); // the readers matrix's stress test
    EXPECT_EQ(named, files);
    // --list names each, with its seed.
    const auto list = run_command_output(kBinary + " lesson --list");
    EXPECT_EQ(list.exit_code, 0);
    for (const auto& l : lessons())
        EXPECT_NE(list.out.find(l.name + " "), std::string::npos) << l.name;
}

class EachLesson : public ::testing::TestWithParam<std::string> {};

TEST_P(EachLesson, ShowsWhatItTeachesWithItsSeed) {
    const auto* lesson = find_lesson(GetParam());
    ASSERT_NE(lesson, nullptr);
    const std::string out =
        ::testing::TempDir() + "/lesson-" + lesson->name + "-" + std::to_string(::getpid());
    const auto r = run_command_output(kBinary + " lesson " + lesson->name + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Lesson " + lesson->name + ": scenarios/teaching/" + lesson->name +
                         ".json, seed " + std::to_string(lesson->seed)),
              std::string::npos);
    EXPECT_NE(r.out.find(", as it should"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("gtkwave " + lesson->name + ".vcd scenarios/teaching/" + lesson->name + ".gtkw"),
        std::string::npos);
    // What it shows, kind by kind, from its own stats.json.
    std::ifstream in(out + "/stats.json");
    const nlohmann::json lesson_stats = nlohmann::json::parse(in);
    const nlohmann::json& t = lesson_stats.at("total");
    std::set<std::string> shown;
    for (const nlohmann::json* v :
         {&t.at("violations"), t.contains("aux") ? &t.at("aux").at("violations") : nullptr})
        if (v)
            for (const auto& [kind, n] : v->items())
                if (kind != "total" && n.get<uint64_t>() > 0) shown.insert(kind);
    EXPECT_EQ(shown, std::set<std::string>(lesson->kinds.begin(), lesson->kinds.end()));
    // The same run as the file's with that seed.
    const auto run = run_ringsim("scenarios/teaching/" + lesson->name + ".json",
                                 "--seed " + std::to_string(lesson->seed));
    EXPECT_EQ(lesson_stats, run.stats);
    std::filesystem::remove_all(out);
}

std::vector<std::string> lesson_names() {
    std::vector<std::string> names;
    for (const auto& l : lessons())
        names.push_back(l.name);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Lessons, EachLesson, ::testing::ValuesIn(lesson_names()),
                         [](const auto& param_info) {
                             std::string n = param_info.param;
                             for (char& c : n)
                                 if (c == '-' || c == '.') c = '_';
                             return n;
                         });

TEST(Lesson, BadRequestsAreBadInput) {
    const std::string out = " --out " + ::testing::TempDir() + "/lesson-bad";
    const auto unknown = run_command(kBinary + " lesson no-such" + out);
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no lesson 'no-such'"), std::string::npos) << unknown.err;
    const auto set = run_command(kBinary + " lesson no-B --set seed=3" + out);
    EXPECT_EQ(set.exit_code, 2);
    EXPECT_NE(set.err.find("runs as written"), std::string::npos) << set.err;
    EXPECT_EQ(run_command(kBinary + " lesson").exit_code, 2);
    EXPECT_EQ(run_command(kBinary + " lesson no-B --bogus" + out).exit_code, 2);
}

} // namespace
