// Metric paths of sweep specs, checked against the statistics of stats.json: a path is
// "total.<stat>", "total.aux.<stat>", "buffers.<i or name>.<stat>" or
// "buffers.<i or name>.aux.<stat>".
#pragma once

#include <string>
#include <vector>

namespace ringsim::platform::sweep {

// Every addressable leaf, with "*" for a buffer's index or name.
const std::vector<std::string>& metric_patterns();
bool is_stat_path(const std::string& path);
// The known path nearest to `path` (edit distance), for "did you mean" messages.
std::string nearest_stat_path(const std::string& path);

} // namespace ringsim::platform::sweep
