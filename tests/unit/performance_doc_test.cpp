// docs/performance.md shows the figures of tests/bench/results.json (written by ringsim_bench
// --results) between two markers (and docs/reliability.md the soak's); the page must show exactly
// what that file holds, so the figures it quotes are the ones measured. RINGSIM_UPDATE_DOCS=1
// rewrites the block.
#include "tests/bench/bench_figures.h"
#include "tests/support/generated_doc.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace {

using namespace ringsim::bench;

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::string kDoc = std::string(RINGSIM_SOURCE_DIR) + "/docs/performance.md";
const std::string kResults = std::string(RINGSIM_SOURCE_DIR) + "/tests/bench/results.json";
const std::string kBegin = "<!-- bench-results: ";
const std::string kEnd = "<!-- /bench-results -->\n";

// The page with every block "<!-- bench-results: FILE -->" ... "<!-- /bench-results -->"
// made anew from FILE (a path from the repository's root).
std::string regenerated(const std::string& doc, int& blocks) {
    std::string out;
    size_t at = 0;
    blocks = 0;
    for (size_t begin; (begin = doc.find(kBegin, at)) != std::string::npos; ++blocks) {
        const size_t name_end = doc.find(" -->\n", begin);
        const size_t end = doc.find(kEnd, begin);
        if (name_end == std::string::npos || end == std::string::npos || end < name_end) {
            ADD_FAILURE() << "an unclosed bench-results block at offset " << begin;
            return doc;
        }
        const std::string file =
            doc.substr(begin + kBegin.size(), name_end - begin - kBegin.size());
        out += doc.substr(at, name_end + 5 - at);
        out += render_markdown(
            nlohmann::json::parse(read(std::string(RINGSIM_SOURCE_DIR) + "/" + file)));
        at = end;
    }
    return out + doc.substr(at);
}

TEST(Performance, DocShowsTheRecordedResults) {
    const std::string doc = read(kDoc);
    int blocks = 0;
    const std::string now = regenerated(doc, blocks);
    EXPECT_EQ(blocks, 2) << "the figures now and before issue 13";
    RINGSIM_EXPECT_GENERATED_DOC("docs/performance.md", now);
}

TEST(Performance, ResultsHoldEveryFigureTheBenchReports) {
    // A results file that lost a figure (a group that failed, --only) would leave the page
    // without it: the committed one has them all, each with its target where it has one.
    const auto results = nlohmann::json::parse(read(kResults));
    std::set<std::string> ids;
    for (const auto& j : results.at("figures"))
        ids.insert(figure_from_json(j).id);
    for (const char* id :
         {"speed.reference.sc", "speed.arm_over_sc", "speed.aux_reference",
          "speed.aux_snapshot_ms_per_mb", "instructions_per_record.sc",
          "instructions_per_record.arm", "instructions.cpus32_over_cpus4", "memory.10s_over_1s",
          "memory.buffers_4GiB", "runs.per_run_ms", "runs.matrix_200"})
        EXPECT_TRUE(ids.count(id)) << "tests/bench/results.json lacks " << id;
    EXPECT_TRUE(results.contains("profile"));
}

// docs/reliability.md shows the soak's figures (tests/bench/soak-results.json) the same way.
TEST(Reliability, DocShowsTheRecordedSoak) {
    const std::string doc = read(std::string(RINGSIM_SOURCE_DIR) + "/docs/reliability.md");
    int blocks = 0;
    const std::string now = regenerated(doc, blocks);
    EXPECT_EQ(blocks, 1) << "the soak's figures";
    EXPECT_NE(doc.find(kBegin + "tests/bench/soak-results.json -->"), std::string::npos);
    RINGSIM_EXPECT_GENERATED_DOC("docs/reliability.md", now);
}

TEST(Performance, NumbersAreGroupedAndRounded) {
    EXPECT_EQ(format_number(0, 0), "0");
    EXPECT_EQ(format_number(999, 0), "999");
    EXPECT_EQ(format_number(1000, 0), "1,000");
    EXPECT_EQ(format_number(6554.6, 0), "6,555");
    EXPECT_EQ(format_number(1234567.891, 2), "1,234,567.89");
    EXPECT_EQ(format_number(-1234.5, 1), "-1,234.5");
    EXPECT_EQ(format_number(-0.001, 1), "0.0");
}

TEST(Performance, TargetsCompareAsTheirOperatorSays) {
    Figure f{"x", "x", 2500, "", "<=", 2500, 0};
    EXPECT_TRUE(met(f));
    f.value = 2501;
    EXPECT_FALSE(met(f));
    f.op = ">=";
    EXPECT_TRUE(met(f));
    f.op = "<";
    f.value = 2500;
    EXPECT_FALSE(met(f));
    f.op = "";
    EXPECT_TRUE(met(f)); // no target: reported only
    const Figure back = figure_from_json(to_json(Figure{"a.b", "l", 1.5, "x", ">=", 2, 2}));
    EXPECT_EQ(back.id, "a.b");
    EXPECT_EQ(back.op, ">=");
    EXPECT_EQ(back.bound, 2);
    EXPECT_FALSE(met(back));
}

} // namespace
