// docs/reliability.md shows the figures of tests/fuzz/campaign.json (written by
// tools/fuzz.sh --campaign) between two markers; the page must show exactly what that file
// holds, so that the campaign it quotes is the one recorded. RINGSIM_UPDATE_DOCS=1 rewrites
// the block.
#include "tests/bench/bench_figures.h"
#include "tests/support/generated_doc.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::string kDoc = std::string(RINGSIM_SOURCE_DIR) + "/docs/reliability.md";
const std::string kCampaign = std::string(RINGSIM_SOURCE_DIR) + "/tests/fuzz/campaign.json";
const std::string kBegin = "<!-- fuzz-campaign: tests/fuzz/campaign.json -->\n";
const std::string kEnd = "<!-- /fuzz-campaign -->\n";

std::string render(const nlohmann::json& c) {
    std::ostringstream o;
    o << "| target | executions | cov | ft | seconds | exec/s | corpus | crashes |\n"
      << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    using ringsim::bench::format_number; // 1234567 -> "1,234,567"
    for (const auto& t : c.at("targets"))
        o << "| `" << t.at("name").get<std::string>() << "` | "
          << format_number(t.at("executions").get<double>(), 0) << " | "
          << t.at("cov").get<uint64_t>() << " | " << t.at("ft").get<uint64_t>() << " | "
          << format_number(t.at("seconds").get<double>(), 0) << " | "
          << format_number(t.at("exec_per_s").get<double>(), 0) << " | "
          << t.at("corpus").get<uint64_t>() << " | 0 |\n";
    const auto& m = c.at("machine");
    o << "\nRun on " << c.at("date").get<std::string>() << " at commit `"
      << c.at("commit").get<std::string>() << "`, on " << m.at("cpu").get<std::string>() << " ("
      << m.at("cores").get<int>() << " cores), Linux " << m.at("kernel").get<std::string>() << ", "
      << m.at("clang").get<std::string>() << "; sanitizers "
      << c.at("sanitizers").get<std::string>() << "; " << c.at("options").get<std::string>()
      << ". To repeat it:\n\n```\n"
      << c.at("command").get<std::string>() << "\n```\n";
    return o.str();
}

TEST(FuzzCampaign, DocShowsTheRecordedCampaign) {
    const std::string doc = read(kDoc);
    const size_t begin = doc.find(kBegin);
    ASSERT_NE(begin, std::string::npos) << kDoc << " lacks " << kBegin;
    const size_t end = doc.find(kEnd, begin);
    ASSERT_NE(end, std::string::npos) << kDoc << ": an unclosed fuzz-campaign block";
    const std::string now = doc.substr(0, begin + kBegin.size()) +
                            render(nlohmann::json::parse(read(kCampaign))) + doc.substr(end);
    RINGSIM_EXPECT_GENERATED_DOC("docs/reliability.md", now);
}

TEST(FuzzCampaign, CoversEveryTargetWithAMillionExecutions) {
    const auto c = nlohmann::json::parse(read(kCampaign));
    std::set<std::string> names;
    for (const auto& t : c.at("targets")) {
        names.insert(t.at("name").get<std::string>());
        EXPECT_GE(t.at("executions").get<uint64_t>(), 1000000u) << t.at("name");
    }
    std::ifstream list(std::string(RINGSIM_SOURCE_DIR) + "/tests/fuzz/targets.txt");
    for (std::string line; std::getline(list, line);) {
        if (line.empty() || line[0] == '#') continue;
        const std::string name = line.substr(0, line.find(' '));
        EXPECT_TRUE(names.count(name)) << "tests/fuzz/campaign.json lacks the target " << name;
    }
}

} // namespace
