// docs/statistics.md is exactly what the statistics registry generates, and the registry
// declares every path once, with a unit and a description (RINGSIM_UPDATE_DOCS=1 rewrites
// the page instead of failing).
#include "platform/output.h"
#include "platform/stat_paths.h"

#include <gtest/gtest.h>

#include "tests/support/generated_doc.h"

#include <set>

TEST(Statistics, DocMatchesTheTable) {
    RINGSIM_EXPECT_GENERATED_DOC("docs/statistics.md", ringsim::platform::stat_defs_markdown());
}

TEST(Statistics, PathsAreUniqueAndDocumented) {
    std::set<std::string> seen;
    for (const auto& d : ringsim::platform::stat_registry().decls()) {
        EXPECT_TRUE(seen.insert(d.path).second) << d.path << " declared twice";
        EXPECT_FALSE(d.unit.empty()) << d.path;
        EXPECT_GT(d.description.size(), 10u) << d.path;
        // A counter says how to read it; a ratio names two counters.
        EXPECT_TRUE(d.ratio() ? !d.denominator.empty() : bool(d.read)) << d.path;
    }
    for (const char* required :
         {"records.produced", "records.delivered", "records.lost", "records.unread", "lost_records",
          "bytes.produced", "bytes.delivered", "wakeups", "consumer.polls", "violations.total"})
        EXPECT_TRUE(seen.count(required)) << required << " is required by issue 2";
    for (const char* required : {"records.lost_fraction", "aux.bytes.lost_fraction"})
        EXPECT_TRUE(seen.count(required)) << required << " is required by issue 9";
}
