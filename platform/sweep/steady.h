// The steady state of one run, from its DIR/series.csv (docs/series.md): the intervals that
// start at or after the warm-up and end by the workload's end, so that neither the empty
// buffers of the start nor the final drain weigh in. Summed over the buffers.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace ringsim::platform::sweep {

// {"window_s": S, "total": {"records": {"produced", "delivered", "lost", "lost_fraction"},
// "aux": {"bytes": {"produced", "lost", "lost_fraction"}}}} (aux only when the series has
// it); empty, with `error` set, when the file is missing or malformed or no interval falls
// in the window.
std::optional<nlohmann::json> steady_figures(const std::filesystem::path& series_csv,
                                             uint64_t interval_ps, uint64_t warmup_ps,
                                             uint64_t duration_ps, std::string& error);

} // namespace ringsim::platform::sweep
