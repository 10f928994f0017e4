// The strict scenario loader: JSON file -> --set overrides -> validation against the
// parameter table (params.h) and the kernel's rules, collecting every error -> defaults
// filled in one place -> the typed Scenario. It never throws.
#pragma once

#include "platform/config/scenario.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ringsim::config {

// One configuration mistake, located by its JSON pointer.
struct ConfigError {
    std::string pointer;  // "/session/data_pages"; "" for the whole document
    std::string expected; // "a power of two ...", "one of the keys a, b, c"
    std::string found;    // the JSON text of the value, "nothing", or "unknown key \"x\""
    // "<pointer>: expected <expected>, found <found>"
    std::string message() const;
};

struct LoadResult {
    std::optional<Scenario> scenario; // empty when errors is not
    nlohmann::json effective;         // every key present, derived defaults computed
    std::vector<ConfigError> errors;  // all of them, in document order
    // The table's keys the typed Scenario was read from ("/workload/writers/*/rate"): the
    // test that every declared key reaches the Scenario reads it.
    std::set<std::string> keys_read;
};

// The largest scenario file read (the curated ones are a few KiB).
constexpr uint64_t kMaxScenarioBytes = uint64_t(16) << 20;

// Loads a scenario file: a regular file of at most kMaxScenarioBytes. `sets` are "PATH=VALUE"
// overrides applied in order (PATH dotted, "session.data_pages" or "workload.writers.0.rate", or a
// JSON pointer); VALUE is JSON if it parses, else a string. `seed_override` replaces /seed after
// the overrides.
LoadResult load_scenario_file(const std::string& path, const std::vector<std::string>& sets,
                              std::optional<uint64_t> seed_override);

// A scenario file's text (a regular file of at most kMaxScenarioBytes), or nothing and in
// `error` why it is refused, as load_scenario_file reports it.
std::optional<std::string> read_scenario_file(const std::string& path, ConfigError& error);

// The JSON pointer a --set PATH names: "workload.writers[0].rate" or "workload.writers.0.rate"
// -> "/workload/writers/0/rate"; a pointer is returned as it is.
std::string set_path_to_pointer(const std::string& path);
// What is wrong with a dotted --set PATH ("platform..cpus", "workload.writers[0.rate"), or
// nothing: keys joined by '.', a list element as [N] or .N. A JSON pointer is not checked
// here (its tokens are checked against the parameter table).
std::optional<std::string> set_path_problem(const std::string& path);
// What a dotted PATH must look like, for error messages.
extern const char* const kSetPathExpected;

// The texts of the histogram files a scenario names, by the path they were opened at.
using FileTexts = std::map<std::string, std::string>;

// A scenario as a sweep planned it: the file's text and those of the histogram files it
// (and the sweep's overrides) named. A point that loads it reads no file: it runs what its
// id was hashed from, whatever becomes of the files on disk meanwhile.
struct ScenarioTexts {
    std::string scenario;
    FileTexts histograms;
};

// The same from text in memory; `origin` names it in a JSON syntax error and is its place:
// the histogram files it names are read from origin's directory. A histogram file found in
// `planned` (by the path it would be opened at) is taken from there instead of the disk; one
// read from the disk is added to `read`.
LoadResult load_scenario_json(const std::string& text, const std::vector<std::string>& sets,
                              std::optional<uint64_t> seed_override, const std::string& origin,
                              const FileTexts* planned = nullptr, FileTexts* read = nullptr);

} // namespace ringsim::config
