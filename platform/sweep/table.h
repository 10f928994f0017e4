// What a sweep's results add up to: one row per point, in the spec's order, with the number
// of replicates that completed and failed and, per metric, the mean and its 95% confidence
// interval (Student t over replicates); and the answer to the spec's target. Both `ringsim
// sweep` (when every point is done) and `ringsim merge` print them from DIR/sweep.json and
// the result lines alone.
#pragma once

#include "platform/sweep/points.h"
#include "platform/sweep/spec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ringsim::platform::sweep {

// DIR/sweep.json: everything merge needs, without the scenario files.
struct SweepInfo {
    struct AxisInfo {
        std::string path;
        std::vector<nlohmann::json> values;
        std::vector<std::optional<double>> numeric;
    };
    struct PointInfo {
        std::string id;
        std::vector<size_t> value_index;
    };
    std::string spec_hash;
    std::vector<AxisInfo> axes;
    std::vector<PointInfo> points;
    std::vector<std::string> metrics;
    uint64_t replicates = 1;
    std::optional<Target> target;
};

nlohmann::json sweep_json(const SweepSpec& spec, const Plan& plan);
// The inverse of sweep_json; `error` says what is wrong when it cannot be read.
std::optional<SweepInfo> parse_sweep_json(const nlohmann::json& j, std::string& error);

struct MetricSummary {
    size_t n = 0; // replicates that had the metric
    double mean = 0;
    std::optional<std::pair<double, double>> ci95; // with 2 replicates or more
};

struct Row {
    size_t point = 0; // index into SweepInfo::points
    size_t replicates = 0, failed = 0;
    std::vector<MetricSummary> metrics;
    // Per metric, the value of each completed replicate (for the answer).
    std::vector<std::vector<double>> values;
};

struct Table {
    std::vector<Row> rows;
    size_t duplicates = 0; // lines of a (point, replicate) seen before, dropped
    size_t missing = 0;    // (point, replicate) pairs with no line
    size_t unknown = 0;    // lines of points that are not the spec's
};

// Builds the table from result lines (of one or more shards and directories).
Table build_table(const SweepInfo& info, const std::vector<nlohmann::json>& lines);

nlohmann::json table_json(const SweepInfo& info, const Table& t);
std::string table_csv(const SweepInfo& info, const Table& t);
void print_table(std::ostream& out, const SweepInfo& info, const Table& t);

// The target's answer: for each combination of the other axes, the smallest (or largest)
// value of the chosen axis whose every replicate meets the bound.
struct Answer {
    std::vector<std::string> other_paths;
    struct Line {
        std::vector<nlohmann::json> others;
        std::optional<nlohmann::json> value; // empty: none in range
        std::string note;                    // why not, when some point is not there
    };
    std::vector<Line> lines;
};

Answer answer(const SweepInfo& info, const Table& t);
std::string answer_csv(const SweepInfo& info, const Answer& a);
void print_answer(std::ostream& out, const SweepInfo& info, const Answer& a);

} // namespace ringsim::platform::sweep
