// The parameter table: well formed, printed as `ringsim params`, and docs/scenario-reference.md
// is exactly what the table generates (RINGSIM_UPDATE_DOCS=1 rewrites it instead of failing).
#include "platform/config/params.h"
#include "platform/config/units.h"

#include <gtest/gtest.h>

#include "tests/support/generated_doc.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace ringsim::config {
namespace {

TEST(Params, TableIsWellFormed) {
    std::set<std::string> paths;
    for (const Param& p : params()) {
        EXPECT_TRUE(paths.insert(p.path).second) << "duplicate " << p.path;
        EXPECT_FALSE(p.description.empty()) << p.path;
        // Every row's parent is a row too, so the walk and the listing see every key.
        const std::string parent = p.path.substr(0, p.path.rfind('/'));
        if (!parent.empty()) {
            const std::string row = parent.size() > 2 && parent.substr(parent.size() - 2) == "/*"
                                        ? parent.substr(0, parent.size() - 2)
                                        : parent;
            EXPECT_NE(find_param(row), nullptr) << p.path;
        }
        if (p.kind == ParamKind::enumeration || p.kind == ParamKind::enum_list) {
            EXPECT_FALSE(p.choices.empty()) << p.path;
        }
    }
}

TEST(Params, DefaultsPassTheirOwnRules) {
    for (const Param& p : params()) {
        if (p.default_kind != DefaultKind::value) continue;
        const nlohmann::json& d = p.default_value;
        switch (p.kind) {
        case ParamKind::size:
            EXPECT_TRUE(parse_size(d.get<std::string>())) << p.path;
            break;
        case ParamKind::time:
            EXPECT_TRUE(parse_time(d.get<std::string>())) << p.path;
            break;
        case ParamKind::frequency:
            EXPECT_TRUE(parse_frequency(d.get<std::string>())) << p.path;
            break;
        case ParamKind::bandwidth:
            EXPECT_TRUE(parse_bandwidth(d.get<std::string>())) << p.path;
            break;
        case ParamKind::enumeration:
            EXPECT_NE(std::find(p.choices.begin(), p.choices.end(), d.get<std::string>()),
                      p.choices.end())
                << p.path;
            break;
        default:
            break;
        }
    }
}

// Issue 14 §2: every rate, bandwidth and time has a range a real machine could have, so a
// typo cannot ask for a run of days (a rate of 1000GHz) or a drain of centuries (1B/s).
TEST(Params, EveryRateBandwidthAndTimeIsBounded) {
    for (const Param& p : params()) {
        if (p.kind != ParamKind::time && p.kind != ParamKind::time_list &&
            p.kind != ParamKind::frequency && p.kind != ParamKind::bandwidth)
            continue;
        EXPECT_TRUE(p.max.has_value()) << p.path << " has no maximum";
        const bool rate = p.kind == ParamKind::frequency || p.kind == ParamKind::bandwidth;
        EXPECT_TRUE(!rate || p.min.has_value()) << p.path << " has no minimum";
    }
}

TEST(Params, DottedKeys) {
    EXPECT_EQ(dotted_key("/workload/writers/*/rate"), "workload.writers[].rate");
    EXPECT_EQ(dotted_key("/session/data_pages"), "session.data_pages");
    EXPECT_EQ(dotted_key("/seed"), "seed");
}

TEST(Params, ListingHasEveryKeyAligned) {
    std::ostringstream out;
    print_params(out);
    const std::string text = out.str();
    EXPECT_EQ(text.rfind("KEY", 0), 0u);
    for (const Param& p : params())
        EXPECT_NE(text.find(dotted_key(p.path) + "  "), std::string::npos) << p.path;
    EXPECT_NE(text.find("integer (pages) 1..1048576, power of two"), std::string::npos) << text;
    EXPECT_NE(text.find("derived: the last CPU"), std::string::npos);
    // A distributed time says how to write one (issue 16).
    EXPECT_NE(text.find("{\"distribution\": \"lognormal\", \"median\": TIME, \"sigma\": NUMBER}"),
              std::string::npos);
    // Aligned: the type column starts at the same offset on every line.
    std::istringstream lines(text);
    std::string first;
    std::getline(lines, first);
    const size_t column = first.find("TYPE/UNIT");
    for (std::string line; std::getline(lines, line);) {
        ASSERT_GT(line.size(), column) << line;
        EXPECT_EQ(line.substr(column - 2, 2), "  ") << line;
        EXPECT_NE(line[column], ' ') << line;
    }
}

TEST(Params, ReferenceDocMatchesTheTable) {
    RINGSIM_EXPECT_GENERATED_DOC("docs/scenario-reference.md", params_markdown());
}

} // namespace
} // namespace ringsim::config
