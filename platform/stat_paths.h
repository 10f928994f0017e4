// Every statistic of stats.json, addressed by its path: the registry the models declare
// into (assembled here, once), the leaf paths users and sweep specs name, and the nearest
// known path for a "did you mean" when one is misspelt.
#pragma once

#include "models/common/stat_registry.h"

#include <string>
#include <vector>

namespace ringsim::platform {

// The registry, each model's declarations in the order of models/common/stat_registry.h.
const models::StatRegistry& stat_registry();

// Every addressable stats.json leaf: "total.records.lost", "total.aux.bytes.lost",
// "buffers.*.records.lost", "buffers.*.aux.bytes.lost", ... with `*` standing for a
// buffer's index in the buffers array. In registry order, each path's total form before its
// per-buffer form. AUX paths are listed whether or not a scenario enables the AUX area.
std::vector<std::string> stat_paths();

// Whether `path` is one of stat_paths(), a concrete buffer index or name
// ("buffers.2.records.lost", "buffers.cpu2.records.lost") standing for its `*`.
bool is_stat_path(const std::string& path);

// The known path closest to `path` by edit distance (insertions, deletions and substitutions
// of characters; a concrete buffer index or name counts as `*`), the first in stat_paths() order on
// a tie: for "unknown metric X, did you mean Y" messages.
std::string nearest_stat_path(const std::string& path);

} // namespace ringsim::platform
