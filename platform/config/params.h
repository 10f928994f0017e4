// The one table of every scenario key: JSON pointer, kind, default, bounds and a one-line
// description. The loader validates against it, fills defaults from it, and `ringsim params`
// and docs/scenario-reference.md are both printed from it, so they cannot disagree.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringsim::config {

enum class ParamKind {
    integer,
    boolean,
    string, // always non-empty
    enumeration,
    size, // "64KiB" -> bytes
    time, // "250ns" -> picoseconds
    // A time ("250ns": fixed) or a distribution of times, {"distribution": "exponential" |
    // "lognormal" | "empirical", ...} -> models::TimeDistribution; bounds apply to its times.
    time_distribution,
    frequency, // "10kHz" -> Hz
    bandwidth, // "4GB/s" -> bytes per second
    integer_list,
    time_list, // times, strictly increasing: ["1ms", "2.5ms"] -> picoseconds
    enum_list,
    object_array, // elements are objects whose keys are rows "<path>/*/<key>"
    object,       // keys are rows "<path>/<key>"
};

enum class DefaultKind {
    value,    // Param::default_value
    required, // no default: a missing key is an error
    derived,  // computed by the loader from other keys; Param::derived says how
};

struct Param {
    std::string path; // JSON pointer; array elements are "*": "/workload/writers/*/rate"
    ParamKind kind = ParamKind::object;
    DefaultKind default_kind = DefaultKind::value;
    nlohmann::json default_value;
    std::string derived;              // DefaultKind::derived: short text, e.g. "the last CPU"
    std::vector<std::string> choices; // enum and enum-list names; for a size, its only values
    // Bounds in the kind's base unit (count, bytes, ps, Hz, B/s); for a list, of each element.
    std::optional<double> min, max;
    bool min_exclusive = false; // "> min" rather than ">= min"
    bool power_of_two = false;
    bool unique_items = false; // lists: no value twice
    size_t min_items = 0;      // lists and arrays of objects
    std::string unit;          // unit word for the listing, e.g. "pages"
    std::string rule;          // the kernel rule behind a bound, said in its error message
    std::string description;

    // Fluent setters keep the table in params.cpp one readable statement per key.
    Param& def(nlohmann::json v) { return default_value = std::move(v), *this; }
    Param& required() { return default_kind = DefaultKind::required, *this; }
    Param& derive(std::string how) {
        return default_kind = DefaultKind::derived, derived = std::move(how), *this;
    }
    Param& one_of(std::vector<std::string> c) { return choices = std::move(c), *this; }
    Param& at_least(double v) { return min = v, *this; }
    Param& above(double v) { return min = v, min_exclusive = true, *this; }
    Param& at_most(double v) { return max = v, *this; }
    Param& pow2() { return power_of_two = true, *this; }
    Param& unique() { return unique_items = true, *this; }
    Param& items_at_least(size_t n) { return min_items = n, *this; }
    Param& in(std::string u) { return unit = std::move(u), *this; }
    Param& because(std::string r) { return rule = std::move(r), *this; }
    Param& desc(std::string d) { return description = std::move(d), *this; }
};

// Every scenario key, in document order (the order of the reference and the listing).
const std::vector<Param>& params();
// The row for a pattern such as "/session/pause/*/at"; nullptr when there is none.
const Param* find_param(std::string_view pattern);
// The items with `sep` between them: "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& sep);
// Rows directly below a pattern ("" for the top level), in table order.
const std::vector<const Param*>& child_params(std::string_view pattern);

// "/workload/writers/*/rate" -> "workload.writers[].rate", the form users read and --set takes.
std::string dotted_key(std::string_view path);
// The type column: kind, unit, bounds, choices, e.g. "integer 1..64 (CPUs)".
std::string param_type_text(const Param& p);
// The bounds alone: "1..64", ">= 0", "> 0", "" when unbounded.
std::string param_bounds_text(const Param& p);
// The default column: the JSON default, "required", or the derived text.
std::string param_default_text(const Param& p);

// `ringsim params`: one aligned row per key (key, type/unit, default, description).
void print_params(std::ostream& out);
// The body of docs/scenario-reference.md.
std::string params_markdown();

} // namespace ringsim::config
