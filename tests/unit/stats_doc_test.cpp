// docs/statistics.md is exactly what the statistics table generates, and stats.json has
// every path of the table (RINGSIM_UPDATE_DOCS=1 rewrites the page instead of failing).
#include "models/common/buffer_stats.h"
#include "platform/output.h"

#include <gtest/gtest.h>

#include "tests/support/generated_doc.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

TEST(Statistics, DocMatchesTheTable) {
    RINGSIM_EXPECT_GENERATED_DOC("docs/statistics.md", ringsim::platform::stat_defs_markdown());
}

TEST(Statistics, PathsAreUniqueAndDocumented) {
    std::set<std::string> seen;
    for (const auto& d : ringsim::models::buffer_stat_defs()) {
        EXPECT_TRUE(seen.insert(d.path).second) << d.path << " declared twice";
        EXPECT_FALSE(std::string(d.unit).empty()) << d.path;
        EXPECT_GT(std::string(d.description).size(), 10u) << d.path;
    }
    for (const char* required :
         {"records.produced", "records.delivered", "records.lost", "records.unread", "lost_records",
          "bytes.produced", "bytes.delivered", "wakeups", "consumer.polls", "violations.total"})
        EXPECT_TRUE(seen.count(required)) << required << " is required by issue 2";
}
