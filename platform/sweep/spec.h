// Sweep specs: which scenario, which fixed overrides, which axes and how they combine, how
// many replicates, which statistics to summarise and, optionally, the question to answer
// ("the smallest data buffer that loses at most 0.1% of the records"). Loaded as strictly as
// a scenario: every error at once, each with its JSON pointer, what was expected and what
// was found. docs/sweeps.md is the guide.
#pragma once

#include "platform/config/loader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::platform::sweep {

struct Axis {
    std::string path;    // as written in the spec: "session.data_pages"
    std::string pointer; // "/session/data_pages"
    std::vector<nlohmann::json> values;
    std::vector<std::optional<double>> numeric; // each value in its base unit, when it has one
    std::string from;                           // "values", "range" or "pow2"
};

struct Target {
    std::string metric;
    bool at_most = true; // else at_least
    double bound = 0;
    bool minimize = true; // else maximize
    size_t axis = 0;      // index into SweepSpec::axes
};

// Steady-state figures from each run's series (`ringsim run --series INTERVAL`): the
// intervals after `warmup` and before the workload's end, leaving out the start and the
// final drain.
struct SeriesSpec {
    std::string interval; // as written, passed to --series
    uint64_t interval_ps = 0;
    uint64_t warmup_ps = 0;
};

struct SweepSpec {
    std::string file;              // the spec file, as given
    nlohmann::json document;       // as written
    std::string scenario;          // the base scenario's path, resolved against the spec
    std::vector<std::string> sets; // fixed overrides, PATH=VALUE: the spec's, then --set's
    std::vector<std::string> command_line_sets;
    std::vector<Axis> axes;
    bool zip = false; // else product
    uint64_t replicates = 1;
    uint64_t seed = 1;
    std::vector<std::string> metrics;
    std::optional<Target> target;
    std::optional<SeriesSpec> series;
};

struct SpecLoad {
    std::optional<SweepSpec> spec; // empty when errors is not
    std::vector<config::ConfigError> errors;
};

// The most points a spec may have: every point is validated (and hashed) before any runs.
constexpr size_t kMaxPoints = 100000;
// The most values an axis may have.
constexpr size_t kMaxAxisValues = 10000;

// Loads and checks a spec; `command_line_sets` are the sweep command's --set overrides of
// the scenario, applied after the spec's own `set`. The points themselves (and the
// scenario's own rules for each) are checked by points.h.
SpecLoad load_sweep_spec(const std::string& file,
                         const std::vector<std::string>& command_line_sets);

// Whether two scenario pointers touch the same key (equal, or one contains the other): an
// axis and a fixed override may not, and a scenario error belongs to what set its key.
bool pointers_overlap(const std::string& a, const std::string& b);

// The spec's metrics when it names none: the loss figures of the data buffers, and of the
// AUX areas when `aux` (some point has session.aux.enabled).
std::vector<std::string> default_metrics(bool aux);

// The metrics a series adds, under "steady." (valid only in a spec with `series`).
const std::vector<std::string>& steady_metric_paths();

// The value of metric `path` in a result line: "steady.X" from the line's steady figures,
// anything else from its stats; nullptr when there is none.
const nlohmann::json* metric_at(const nlohmann::json& line, const std::string& path);

// The value at dotted `path` of a stats.json object ("total.records.lost",
// "buffers.0.records.lost" or "buffers.cpu0.records.lost"); nullptr when there is none.
const nlohmann::json* stat_at(const nlohmann::json& stats, const std::string& path);

} // namespace ringsim::platform::sweep
