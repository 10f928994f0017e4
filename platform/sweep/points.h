// The points of a sweep: every combination of the axes (or their zip), in a fixed order (the
// first axis varies slowest), each resolved into a complete scenario and checked by the
// scenario loader before anything runs. A point's id is a hash of that resolved scenario, so
// it names the same simulation wherever and whenever it runs; each replicate's seed derives
// from the spec's seed, the point's id and the replicate index only.
#pragma once

#include "platform/config/loader.h"
#include "platform/sweep/spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ringsim::platform::sweep {

struct Point {
    size_t index = 0;                // in the spec's order
    std::string id;                  // 16 hex digits
    std::vector<size_t> value_index; // per axis, into Axis::values
    std::vector<std::string> sets;   // the axes' PATH=VALUE overrides
    nlohmann::json axes;             // {PATH: VALUE}, PATH as the spec writes it
    uint64_t duration_ps = 0;        // the workload's, for the steady figures of a series
};

struct Plan {
    std::vector<Point> points;
    std::vector<std::string> metrics; // the spec's, or the defaults
    std::string spec_hash;            // 16 hex digits: the points, replicates, seed, metrics
    uint64_t replicates = 1;
    // The scenario file's text and its histogram files' as planned: every point runs them,
    // so that an edit to a file during the sweep cannot run under ids hashed from the text
    // before it.
    std::shared_ptr<const config::ScenarioTexts> scenario_texts;
    // (point, replicate) pairs are the units of work: item k is point k / replicates,
    // replicate k % replicates; shard I of N runs the items with k % N == I.
    uint64_t items() const { return uint64_t(points.size()) * replicates; }
};

struct PlanLoad {
    std::optional<Plan> plan;
    std::vector<config::ConfigError> errors; // scenario errors, located in the spec
};

PlanLoad plan_sweep(const SweepSpec& spec);

// The seed of a replicate of a point.
uint64_t replicate_seed(uint64_t spec_seed, const std::string& point_id, uint64_t replicate);

// 16 hex digits of a 64-bit hash of `text` (FNV-1a, mixed).
std::string hash_hex(const std::string& text);

} // namespace ringsim::platform::sweep
