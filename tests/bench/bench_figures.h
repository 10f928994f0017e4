// The benchmark's figures as data: each one a value, a unit and the target it is held to, and
// the profile of the reference scenario by component. ringsim_bench writes them to
// tests/bench/results.json; docs/performance.md shows render_markdown() of that file, and a
// unit test (tests/unit/performance_doc_test.cpp) holds the page to it, so the page cannot
// drift from the figures measured. Header-only: the bench and the test both include it.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace ringsim::bench {

// One figure and its target: `value op bound` ("<=", ">=" or "<") is met.
struct Figure {
    std::string id;    // stable key in results.json, e.g. "instructions_per_record.sc"
    std::string label; // what it measures, for the table
    double value = 0;
    std::string unit;
    std::string op; // "" when the figure has no target (reported beside another)
    double bound = 0;
    int digits = 0; // decimals shown
};

inline bool met(const Figure& f) {
    if (f.op == "<=") return f.value <= f.bound;
    if (f.op == ">=") return f.value >= f.bound;
    if (f.op == "<") return f.value < f.bound;
    return true;
}

// A number as the tables show it: fixed decimals, thousands grouped with commas.
inline std::string format_number(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, std::fabs(v));
    std::string s = buf;
    const size_t dot = s.find('.');
    const size_t int_end = dot == std::string::npos ? s.size() : dot;
    std::string grouped;
    for (size_t i = 0; i < int_end; ++i) {
        if (i > 0 && (int_end - i) % 3 == 0) grouped += ',';
        grouped += s[i];
    }
    grouped += s.substr(int_end);
    return (v < 0 && grouped.find_first_not_of("0.,") != std::string::npos ? "-" : "") + grouped;
}

inline nlohmann::json to_json(const Figure& f) {
    nlohmann::json j = {{"id", f.id},
                        {"label", f.label},
                        {"value", f.value},
                        {"unit", f.unit},
                        {"digits", f.digits}};
    if (!f.op.empty()) {
        j["target"] = {{"op", f.op}, {"bound", f.bound}};
        j["met"] = met(f);
    }
    return j;
}

inline Figure figure_from_json(const nlohmann::json& j) {
    Figure f;
    f.id = j.at("id").get<std::string>();
    f.label = j.at("label").get<std::string>();
    f.value = j.at("value").get<double>();
    f.unit = j.at("unit").get<std::string>();
    f.digits = j.at("digits").get<int>();
    if (j.contains("target")) {
        f.op = j.at("target").at("op").get<std::string>();
        f.bound = j.at("target").at("bound").get<double>();
    }
    return f;
}

// The markdown tables of a results.json: the figures against their targets, then the
// profile by component and its top functions (instructions per record, sc and arm).
inline std::string render_markdown(const nlohmann::json& results) {
    std::string md;
    const auto& m = results.at("machine");
    md += "Measured at commit " + results.at("commit").get<std::string>() + " on " +
          results.at("date").get<std::string>() + ": " + m.at("cpu").get<std::string>() + ", " +
          std::to_string(m.at("cores").get<int>()) + " cores, " +
          m.at("memory").get<std::string>() + ", Linux " + m.at("kernel").get<std::string>() +
          " (" + m.at("os").get<std::string>() + ").\n\n";
    md += "| figure | value | target | met |\n|---|---:|---|---|\n";
    for (const auto& j : results.at("figures")) {
        const Figure f = figure_from_json(j);
        const std::string unit = f.unit.empty() ? "" : " " + f.unit;
        md += "| " + f.label + " | " + format_number(f.value, f.digits) + unit + " | ";
        md += f.op.empty() ? "" : f.op + " " + format_number(f.bound, f.digits) + unit;
        md += " | " + std::string(f.op.empty() ? "" : met(f) ? "yes" : "**no**") + " |\n";
    }
    if (!results.contains("profile")) return md;
    const auto& p = results.at("profile");
    auto rows = [&](const char* key, const char* what) {
        md += "\n| " + std::string(what) + " | sc | arm |\n|---|---:|---:|\n";
        for (const auto& r : p.at(key))
            md += "| " + r.at("name").get<std::string>() + " | " +
                  format_number(r.at("sc").get<double>(), 0) + " | " +
                  format_number(r.at("arm").get<double>(), 0) + " |\n";
    };
    md += "\nInstructions per record by component (callgrind, " +
          p.at("method").get<std::string>() + "):\n";
    rows("components", "component");
    md += "\nThe functions that cost most (self instructions per record):\n";
    rows("functions", "function");
    return md;
}

} // namespace ringsim::bench
