#include "platform/sweep/points.h"

#include "models/common/rng.h"
#include "platform/config/units.h"

#include <cstdio>
#include <map>
#include <set>

namespace ringsim::platform::sweep {

using nlohmann::json;

namespace {

// The most distinct scenario errors reported for the points; the rest are counted.
constexpr size_t kMaxPointErrors = 20;

std::string axes_text(const json& axes) {
    std::string text;
    for (const auto& [path, value] : axes.items())
        text += (text.empty() ? "" : ", ") + path + "=" + value.dump();
    return text;
}

// Where in the spec a scenario error of a point comes from: the axis value or fixed override
// that sets the key, else the scenario as a whole.
config::ConfigError locate(const config::ConfigError& e, const SweepSpec& spec, const Point& p) {
    for (size_t a = 0; a < spec.axes.size(); ++a) {
        const Axis& axis = spec.axes[a];
        if (!pointers_overlap(axis.pointer, e.pointer)) continue;
        const std::string at =
            "/axes/" + std::to_string(a) + "/" + axis.from +
            (axis.from == "values" ? "/" + std::to_string(p.value_index[a]) : "");
        return {at, e.expected + " (for " + e.pointer + " of the scenario)", e.found};
    }
    // A fixed override: the spec's set, or the command line's --set.
    if (spec.document.contains("set") && spec.document["set"].is_object())
        for (const auto& [path, value] : spec.document["set"].items())
            if (pointers_overlap(config::set_path_to_pointer(path), e.pointer))
                return {"/set/" + path, e.expected + " (for " + e.pointer + " of the scenario)",
                        e.found};
    for (const std::string& set : spec.command_line_sets)
        if (pointers_overlap(config::set_path_to_pointer(set.substr(0, set.find('='))), e.pointer))
            return {"",
                    e.expected + " (for " + e.pointer + " of the scenario, in --set " + set + ")",
                    e.found};
    return {"/scenario",
            e.expected + " (for " + (e.pointer.empty() ? "the scenario" : e.pointer) +
                (spec.axes.empty() ? "" : ", at " + axes_text(p.axes)) + ")",
            e.found};
}

} // namespace

std::string hash_hex(const std::string& text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : text)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(models::mix64(h)));
    return out;
}

uint64_t replicate_seed(uint64_t spec_seed, const std::string& point_id, uint64_t replicate) {
    return models::derive_seed(spec_seed, point_id + "#" + std::to_string(replicate));
}

PlanLoad plan_sweep(const SweepSpec& spec) {
    PlanLoad result;
    // The combinations, first axis slowest.
    std::vector<std::vector<size_t>> combos;
    if (spec.axes.empty()) {
        combos.push_back({});
    } else if (spec.zip) {
        for (size_t i = 0; i < spec.axes[0].values.size(); ++i)
            combos.push_back(std::vector<size_t>(spec.axes.size(), i));
    } else {
        std::vector<size_t> at(spec.axes.size(), 0);
        for (;;) {
            combos.push_back(at);
            size_t a = spec.axes.size();
            while (a > 0 && ++at[a - 1] == spec.axes[a - 1].values.size())
                at[--a] = 0;
            if (a == 0) break;
        }
    }
    config::ConfigError refused;
    auto text = config::read_scenario_file(spec.scenario, refused);
    if (!text) {
        refused.pointer = "/scenario"; // the spec's key that names the file
        result.errors.push_back(std::move(refused));
        return result;
    }
    Plan plan;
    plan.replicates = spec.replicates;
    config::ScenarioTexts planned; // the histogram files every point's load reads join it
    planned.scenario = std::move(*text);
    const std::string& scenario_text = planned.scenario;
    std::set<std::string> messages;
    size_t more_errors = 0;
    std::map<std::string, size_t> by_id;
    bool aux = false;
    for (const auto& combo : combos) {
        Point p;
        p.index = plan.points.size();
        p.value_index = combo;
        p.axes = json::object();
        for (size_t a = 0; a < spec.axes.size(); ++a) {
            const json& v = spec.axes[a].values[combo[a]];
            p.sets.push_back(spec.axes[a].path + "=" + v.dump());
            p.axes[spec.axes[a].path] = v;
        }
        std::vector<std::string> sets = spec.sets;
        sets.insert(sets.end(), p.sets.begin(), p.sets.end());
        const auto load = config::load_scenario_json(scenario_text, sets, std::nullopt,
                                                     spec.scenario, nullptr, &planned.histograms);
        if (!load.errors.empty()) {
            for (const auto& e : load.errors) {
                const config::ConfigError where = locate(e, spec, p);
                if (messages.count(where.message())) continue;
                if (messages.size() < kMaxPointErrors) {
                    messages.insert(where.message());
                    result.errors.push_back(where);
                } else {
                    ++more_errors;
                }
            }
            continue;
        }
        // The simulation, not its words: the seed comes per replicate, and the description
        // changes nothing that runs.
        json resolved = load.effective;
        resolved.erase("seed");
        resolved.erase("description");
        p.id = hash_hex(resolved.dump());
        if (const auto it = by_id.find(p.id); it != by_id.end()) {
            result.errors.push_back({"/axes", "combinations that give different scenarios",
                                     axes_text(p.axes) + " gives the same scenario as " +
                                         axes_text(plan.points[it->second].axes)});
            continue;
        }
        p.duration_ps = load.scenario->duration_ps;
        if (spec.series && spec.series->warmup_ps + spec.series->interval_ps > p.duration_ps) {
            const std::string where = "/series/warmup";
            const std::string message =
                "a warm-up that leaves at least one interval of the workload (duration " +
                config::format_time(p.duration_ps) +
                (spec.axes.empty() ? "" : " at " + axes_text(p.axes)) + ")";
            if (messages.insert(where + message).second)
                result.errors.push_back({where, message,
                                         spec.document["series"].value("warmup", "0s") +
                                             " + an interval of " + spec.series->interval});
            continue;
        }
        by_id.emplace(p.id, p.index);
        aux = aux || (load.scenario && load.scenario->aux.enabled);
        plan.points.push_back(std::move(p));
    }
    if (more_errors)
        result.errors.push_back(
            {"/scenario", "no more errors", std::to_string(more_errors) + " more, not shown"});
    if (!result.errors.empty()) return result;
    plan.scenario_texts = std::make_shared<const config::ScenarioTexts>(std::move(planned));
    plan.metrics = spec.metrics.empty() ? default_metrics(aux) : spec.metrics;
    if (spec.target && spec.metrics.empty() &&
        std::find(plan.metrics.begin(), plan.metrics.end(), spec.target->metric) ==
            plan.metrics.end())
        plan.metrics.push_back(spec.target->metric);
    json ids = json::array();
    for (const Point& p : plan.points)
        ids.push_back(p.id);
    // What the result lines depend on: the runs and what each line records. The metrics and
    // the target only summarise lines that hold whole stats.json files, so they may change
    // between reruns of the same DIR (sweep.json keeps the latest).
    plan.spec_hash = hash_hex(json{{"points", ids},
                                   {"replicates", spec.replicates},
                                   {"seed", spec.seed},
                                   {"series", spec.document.value("series", json())}}
                                  .dump());
    result.plan = std::move(plan);
    return result;
}

} // namespace ringsim::platform::sweep
