#include "platform/sweep/spec.h"

#include "platform/config/params.h"
#include "platform/config/units.h"
#include "platform/stat_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

namespace ringsim::platform::sweep {

namespace fs = std::filesystem;
using config::ConfigError;
using config::ParamKind;
using nlohmann::json;

namespace {

constexpr uint64_t kMaxSpecBytes = 16 << 20;
constexpr uint64_t kMaxReplicates = 1000000;

const std::vector<std::string> kSpecKeys = {"description", "scenario",   "set",  "axes",
                                            "combine",     "replicates", "seed", "metrics",
                                            "target",      "series"};

std::string keys_text(const std::vector<std::string>& keys) {
    std::string text;
    for (size_t i = 0; i < keys.size(); ++i)
        text += (i ? (i + 1 == keys.size() ? " or " : ", ") : "") + keys[i];
    return text;
}

// A value as an error message shows it: its JSON text, cut short when long.
std::string shown(const json& v) {
    std::string text = v.dump();
    if (text.size() > 80) text = text.substr(0, 77) + "...";
    return text;
}

class Errors {
public:
    void add(std::string pointer, std::string expected, std::string found) {
        m_list.push_back({std::move(pointer), std::move(expected), std::move(found)});
    }
    bool empty() const { return m_list.empty(); }
    std::vector<ConfigError> take() { return std::move(m_list); }

private:
    std::vector<ConfigError> m_list;
};

// The spec's text: a regular file of at most 16 MiB (not a FIFO, a device or a directory).
std::optional<std::string> read_spec(const std::string& file, Errors& errors) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) {
        errors.add("", "a readable sweep spec file", file + " (" + std::strerror(errno) + ")");
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        errors.add("", "a regular file", file + " (not a regular file)");
        return std::nullopt;
    }
    if (uint64_t(st.st_size) > kMaxSpecBytes) {
        errors.add("", "a spec file of at most 16 MiB",
                   file + " (" + std::to_string(st.st_size) + " bytes)");
        return std::nullopt;
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
        errors.add("", "a readable sweep spec file", file);
        return std::nullopt;
    }
    return text.str();
}

// The table row a scenario pointer falls under ("/workload/writers/0/rate" ->
// "/workload/writers/*/rate"); nullptr when there is none.
const config::Param* param_of(const std::string& pointer) {
    std::string pattern;
    std::stringstream in(pointer.substr(1));
    for (std::string token; std::getline(in, token, '/');)
        pattern += "/" + (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)
                              ? std::string("*")
                              : token);
    return config::find_param(pattern);
}

// A quantity in its base unit: a JSON number as it is, a unit string parsed by the kind of
// the key it sets; nullopt when the value is neither.
std::optional<double> numeric_value(const json& v, const config::Param* p) {
    if (v.is_number()) return v.get<double>();
    if (!v.is_string() || !p) return std::nullopt;
    const std::string s = v.get<std::string>();
    switch (p->kind) {
    case ParamKind::size:
        if (auto r = config::parse_size(s)) return double(*r.value);
        break;
    case ParamKind::time:
        if (auto r = config::parse_time(s)) return double(*r.value);
        break;
    case ParamKind::frequency:
        if (auto r = config::parse_frequency(s)) return *r.value;
        break;
    case ParamKind::bandwidth:
        if (auto r = config::parse_bandwidth(s)) return *r.value;
        break;
    default:
        break;
    }
    return std::nullopt;
}

// "12.5" for 12.5, "20000" for 20000.0: a decimal that the unit parsers read back.
std::string decimal(double v) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(6) << v;
    std::string s = o.str();
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

// A generated value in the form the spec wrote its bounds: a number, or a string with the
// key's unit.
json generated(double v, bool as_string, const config::Param* p) {
    if (!as_string) return std::floor(v) == v && std::fabs(v) < 9e15 ? json(int64_t(v)) : json(v);
    switch (p->kind) {
    case ParamKind::size:
        return config::format_size(uint64_t(std::llround(v)));
    case ParamKind::time:
        return config::format_time(uint64_t(std::llround(v)));
    case ParamKind::frequency:
        return decimal(v) + "Hz";
    default:
        return decimal(v) + "B/s";
    }
}

// The bounds of a range or pow2 axis: numbers, or strings with the key's unit (all of one
// form). Adds an error and returns false when they are neither.
bool bounds(const json& obj, const std::vector<std::string>& names, const std::string& at,
            const config::Param* p, std::vector<double>& out, bool& as_string, Errors& errors) {
    bool ok = true;
    as_string = false;
    for (const std::string& name : names) {
        const std::string where = at + "/" + name;
        if (!obj.contains(name)) {
            errors.add(where, "a number or a quantity with a unit", "nothing");
            ok = false;
            continue;
        }
        const json& v = obj[name];
        const auto n = numeric_value(v, p);
        if (!n || !std::isfinite(*n)) {
            errors.add(where,
                       p ? "a number, or a quantity in the unit of " + config::dotted_key(p->path)
                         : "a number",
                       shown(v));
            ok = false;
            continue;
        }
        if (v.is_string()) as_string = true;
        out.push_back(*n);
    }
    if (!ok) return false;
    for (const std::string& name : names)
        if (obj[name].is_string() != as_string) {
            errors.add(at, "bounds all numbers or all quantities with units", shown(obj));
            return false;
        }
    return true;
}

void check_keys(const json& obj, const std::vector<std::string>& keys, const std::string& at,
                Errors& errors) {
    for (const auto& [key, value] : obj.items())
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
            errors.add(at + "/" + key, "one of the keys " + keys_text(keys),
                       "unknown key " + json(key).dump());
}

std::optional<Axis> load_axis(const json& a, const std::string& at, Errors& errors) {
    if (!a.is_object()) {
        errors.add(at, "an object with path and one of values, range or pow2", shown(a));
        return std::nullopt;
    }
    check_keys(a, {"path", "values", "range", "pow2"}, at, errors);
    Axis axis;
    if (!a.contains("path") || !a["path"].is_string() || a["path"].get<std::string>().empty()) {
        errors.add(at + "/path", "a scenario path as --set takes it, e.g. \"session.data_pages\"",
                   a.contains("path") ? shown(a["path"]) : "nothing");
        return std::nullopt;
    }
    axis.path = a["path"].get<std::string>();
    if (const auto problem = config::set_path_problem(axis.path)) {
        errors.add(at + "/path", config::kSetPathExpected, shown(a["path"]) + ": " + *problem);
        return std::nullopt;
    }
    axis.pointer = config::set_path_to_pointer(axis.path);
    if (axis.pointer == "/seed") {
        errors.add(at + "/path",
                   "a scenario key other than seed (each run's seed derives from "
                   "the spec's seed, the point and the replicate)",
                   shown(a["path"]));
        return std::nullopt;
    }
    const config::Param* p = param_of(axis.pointer);
    int forms = 0;
    for (const char* f : {"values", "range", "pow2"})
        if (a.contains(f)) ++forms, axis.from = f;
    if (forms != 1) {
        errors.add(at, "exactly one of values, range or pow2",
                   forms ? std::to_string(forms) + " of them" : "none");
        return std::nullopt;
    }
    const std::string where = at + "/" + axis.from;
    const json& body = a[axis.from];
    if (axis.from == "values") {
        if (!body.is_array() || body.empty() || body.size() > kMaxAxisValues) {
            errors.add(where, "a list of 1 to " + std::to_string(kMaxAxisValues) + " values",
                       body.is_array() ? std::to_string(body.size()) + " values" : shown(body));
            return std::nullopt;
        }
        axis.values.assign(body.begin(), body.end()); // repeats: see load_sweep_spec
    } else if (!body.is_object()) {
        errors.add(where,
                   axis.from == "range" ? "an object {from, to, step}" : "an object {from, to}",
                   shown(body));
        return std::nullopt;
    } else {
        const bool range = axis.from == "range";
        check_keys(body,
                   range ? std::vector<std::string>{"from", "to", "step"}
                         : std::vector<std::string>{"from", "to"},
                   where, errors);
        std::vector<double> b;
        bool as_string = false;
        if (!bounds(body,
                    range ? std::vector<std::string>{"from", "to", "step"}
                          : std::vector<std::string>{"from", "to"},
                    where, p, b, as_string, errors))
            return std::nullopt;
        if (b[0] > b[1]) {
            errors.add(where + "/to", "a bound at least from (" + shown(body["from"]) + ")",
                       shown(body["to"]));
            return std::nullopt;
        }
        if (range) {
            if (b[2] <= 0) {
                errors.add(where + "/step", "a step above 0", shown(body["step"]));
                return std::nullopt;
            }
            const double count = std::floor((b[1] - b[0]) / b[2] + 1e-9) + 1;
            if (count > double(kMaxAxisValues)) {
                errors.add(where, "at most " + std::to_string(kMaxAxisValues) + " values",
                           decimal(count) + " values");
                return std::nullopt;
            }
            for (size_t i = 0; i < size_t(count); ++i)
                axis.values.push_back(generated(b[0] + double(i) * b[2], as_string, p));
        } else {
            if (b[0] < 1) {
                errors.add(where + "/from", "a bound of at least 1", shown(body["from"]));
                return std::nullopt;
            }
            for (double v = std::exp2(std::ceil(std::log2(b[0]))); v <= b[1]; v *= 2)
                axis.values.push_back(generated(v, as_string, p));
            if (axis.values.empty()) {
                errors.add(where, "bounds with a power of two between them", shown(body));
                return std::nullopt;
            }
        }
    }
    for (const json& v : axis.values)
        axis.numeric.push_back(numeric_value(v, p));
    return axis;
}

// A metric path, checked against the statistics registry (and, with a series, the steady
// figures).
bool check_metric(const json& m, const std::string& at, bool series, Errors& errors) {
    if (!m.is_string()) {
        errors.add(at, "a statistics path such as \"total.records.lost\"", shown(m));
        return false;
    }
    const std::string path = m.get<std::string>();
    if (platform::is_stat_path(path)) return true;
    const auto& steady = steady_metric_paths();
    if (path.rfind("steady.", 0) == 0) {
        if (std::find(steady.begin(), steady.end(), path) == steady.end())
            errors.add(at, "one of the steady figures " + keys_text(steady), shown(m));
        else if (!series)
            errors.add(at, "a statistics path; steady figures need \"series\" in the spec",
                       shown(m));
        else
            return true;
        return false;
    }
    errors.add(at,
               "a statistics path of stats.json (`ringsim stats` lists them); the nearest is " +
                   json(platform::nearest_stat_path(path)).dump(),
               shown(m));
    return false;
}

void load_series(const json& j, SweepSpec& s, Errors& errors) {
    if (!j.is_object()) {
        errors.add("/series", "an object {interval, warmup}", shown(j));
        return;
    }
    check_keys(j, {"interval", "warmup"}, "/series", errors);
    SeriesSpec series;
    bool ok = true;
    const auto time = [&](const char* key, bool required, uint64_t& out) {
        if (!j.contains(key)) {
            if (required) errors.add(std::string("/series/") + key, config::kTimeSyntax, "nothing");
            return !required;
        }
        const auto t = j[key].is_string() ? config::parse_time(j[key].get<std::string>())
                                          : config::UnitResult<uint64_t>{};
        if (!t) {
            errors.add(std::string("/series/") + key, config::kTimeSyntax, shown(j[key]));
            return false;
        }
        out = *t.value;
        return true;
    };
    if (time("interval", true, series.interval_ps) && series.interval_ps == 0) {
        errors.add("/series/interval", "a time above 0", shown(j["interval"]));
        ok = false;
    }
    ok = time("warmup", false, series.warmup_ps) && ok;
    if (!ok || series.interval_ps == 0) return;
    series.interval = j["interval"].get<std::string>();
    s.series = series;
}

void load_target(const json& t, SweepSpec& s, Errors& errors) {
    if (!t.is_object()) {
        errors.add("/target", "an object {metric, at_most or at_least, minimize or maximize}",
                   shown(t));
        return;
    }
    check_keys(t, {"metric", "at_most", "at_least", "minimize", "maximize"}, "/target", errors);
    Target target;
    bool ok = true;
    if (!t.contains("metric")) {
        errors.add("/target/metric", "a statistics path", "nothing");
        ok = false;
    } else if (check_metric(t["metric"], "/target/metric", s.series.has_value(), errors)) {
        target.metric = t["metric"].get<std::string>();
    } else {
        ok = false;
    }
    const bool most = t.contains("at_most"), least = t.contains("at_least");
    if (most == least) {
        errors.add("/target", "exactly one of at_most or at_least", most ? "both" : "neither");
        ok = false;
    } else {
        const json& b = t[most ? "at_most" : "at_least"];
        if (!b.is_number()) {
            errors.add(std::string("/target/") + (most ? "at_most" : "at_least"), "a number",
                       shown(b));
            ok = false;
        } else {
            target.at_most = most;
            target.bound = b.get<double>();
        }
    }
    const bool min = t.contains("minimize"), max = t.contains("maximize");
    if (min == max) {
        errors.add("/target", "exactly one of minimize or maximize", min ? "both" : "neither");
        ok = false;
    } else {
        const std::string key = min ? "minimize" : "maximize";
        const json& a = t[key];
        const auto it = a.is_string()
                            ? std::find_if(s.axes.begin(), s.axes.end(),
                                           [&](const Axis& x) {
                                               return x.pointer == config::set_path_to_pointer(
                                                                       a.get<std::string>());
                                           })
                            : s.axes.end();
        if (it == s.axes.end()) {
            std::vector<std::string> paths;
            for (const Axis& x : s.axes)
                paths.push_back(json(x.path).dump());
            errors.add("/target/" + key,
                       paths.empty() ? "an axis path, but the spec has no axes"
                                     : "the path of one of the axes: " + keys_text(paths),
                       shown(a));
            ok = false;
        } else {
            target.minimize = min;
            target.axis = size_t(it - s.axes.begin());
        }
    }
    if (ok) s.target = target;
}

} // namespace

bool pointers_overlap(const std::string& a, const std::string& b) {
    const auto within = [](const std::string& in, const std::string& outer) {
        return in.compare(0, outer.size() + 1, outer + "/") == 0;
    };
    return a == b || within(a, b) || within(b, a);
}

std::vector<std::string> default_metrics(bool aux) {
    std::vector<std::string> m = {"total.records.lost", "total.records.lost_fraction"};
    if (aux) m.insert(m.end(), {"total.aux.bytes.lost", "total.aux.bytes.lost_fraction"});
    return m;
}

const std::vector<std::string>& steady_metric_paths() {
    static const std::vector<std::string> paths = {"steady.window_s",
                                                   "steady.total.records.produced",
                                                   "steady.total.records.delivered",
                                                   "steady.total.records.lost",
                                                   "steady.total.records.lost_fraction",
                                                   "steady.total.aux.bytes.produced",
                                                   "steady.total.aux.bytes.lost",
                                                   "steady.total.aux.bytes.lost_fraction"};
    return paths;
}

const json* metric_at(const json& line, const std::string& path) {
    const std::string steady = "steady.";
    if (path.rfind(steady, 0) == 0)
        return line.contains("steady") ? stat_at(line["steady"], path.substr(steady.size()))
                                       : nullptr;
    return line.contains("stats") ? stat_at(line["stats"], path) : nullptr;
}

const json* stat_at(const json& stats, const std::string& path) {
    const json* node = &stats;
    std::stringstream in(path);
    for (std::string token; std::getline(in, token, '.');) {
        if (node->is_object()) {
            const auto it = node->find(token);
            if (it == node->end()) return nullptr;
            node = &*it;
        } else if (node->is_array()) {
            const json* next = nullptr;
            if (!token.empty() && std::all_of(token.begin(), token.end(), ::isdigit)) {
                if (std::stoull(token) < node->size()) next = &(*node)[std::stoull(token)];
            } else {
                for (const json& e : *node)
                    if (e.is_object() && e.contains("name") && e["name"] == token) next = &e;
            }
            if (!next) return nullptr;
            node = next;
        } else {
            return nullptr;
        }
    }
    return node;
}

SpecLoad load_sweep_spec(const std::string& file,
                         const std::vector<std::string>& command_line_sets) {
    Errors errors;
    SpecLoad result;
    const auto text = read_spec(file, errors);
    if (!text) {
        result.errors = errors.take();
        return result;
    }
    json doc;
    try {
        doc = json::parse(*text);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        if (const size_t close = what.find("] "); close != std::string::npos)
            what = what.substr(close + 2);
        errors.add("", "valid JSON", file + ": " + what);
        result.errors = errors.take();
        return result;
    }
    if (!doc.is_object()) {
        errors.add("", "a JSON object of sweep keys (" + keys_text(kSpecKeys) + ")", shown(doc));
        result.errors = errors.take();
        return result;
    }
    SweepSpec s;
    s.file = file;
    s.document = doc;
    check_keys(doc, kSpecKeys, "", errors);

    if (!doc.contains("scenario") || !doc["scenario"].is_string() ||
        doc["scenario"].get<std::string>().empty()) {
        errors.add("/scenario", "the base scenario's path, relative to the spec",
                   doc.contains("scenario") ? shown(doc["scenario"]) : "nothing");
    } else {
        const fs::path scenario = doc["scenario"].get<std::string>();
        s.scenario = (scenario.is_absolute() ? scenario : fs::path(file).parent_path() / scenario)
                         .lexically_normal()
                         .string();
    }

    std::vector<std::string> fixed_pointers;
    if (doc.contains("set")) {
        if (!doc["set"].is_object()) {
            errors.add("/set", "an object of scenario path: value", shown(doc["set"]));
        } else {
            for (const auto& [path, value] : doc["set"].items()) {
                s.sets.push_back(path + "=" + value.dump());
                fixed_pointers.push_back(config::set_path_to_pointer(path));
            }
        }
    }
    for (const std::string& set : command_line_sets) {
        const size_t eq = set.find('=');
        if (eq == std::string::npos || eq == 0) {
            errors.add("", "--set PATH=VALUE", json(set).dump());
            continue;
        }
        s.sets.push_back(set);
        s.command_line_sets.push_back(set);
        fixed_pointers.push_back(config::set_path_to_pointer(set.substr(0, eq)));
    }

    if (doc.contains("axes")) {
        const json& axes = doc["axes"];
        if (!axes.is_array()) {
            errors.add("/axes", "a list of axes", shown(axes));
        } else {
            for (size_t i = 0; i < axes.size(); ++i) {
                const std::string at = "/axes/" + std::to_string(i);
                auto axis = load_axis(axes[i], at, errors);
                if (!axis) continue;
                for (const Axis& other : s.axes)
                    if (pointers_overlap(other.pointer, axis->pointer))
                        errors.add(at + "/path", "a key no other axis sets",
                                   json(axis->path).dump() + " (also set by the axis " +
                                       json(other.path).dump() + ")");
                for (const std::string& f : fixed_pointers)
                    if (pointers_overlap(f, axis->pointer))
                        errors.add(at + "/path", "a key that set and --set leave alone",
                                   json(axis->path).dump() + " (also fixed at " + f + ")");
                s.axes.push_back(std::move(*axis));
            }
        }
    }

    if (doc.contains("combine")) {
        const json& c = doc["combine"];
        if (c != "product" && c != "zip")
            errors.add("/combine", "\"product\" or \"zip\"", shown(c));
        else
            s.zip = c == "zip";
    }
    // A value twice in a product axis would make every point with it twice; zipped axes
    // repeat values freely (a repeated combination is caught with the points).
    for (size_t a = 0; !s.zip && a < s.axes.size(); ++a) {
        std::set<std::string> seen;
        const Axis& axis = s.axes[a];
        for (size_t i = 0; i < axis.values.size() && axis.from == "values"; ++i)
            if (!seen.insert(axis.values[i].dump()).second) {
                errors.add("/axes/" + std::to_string(a) + "/values/" + std::to_string(i),
                           "a value not already in the list (combine product)",
                           shown(axis.values[i]));
                break;
            }
    }
    if (s.zip)
        for (size_t i = 1; i < s.axes.size(); ++i)
            if (s.axes[i].values.size() != s.axes[0].values.size())
                errors.add("/axes/" + std::to_string(i),
                           "as many values as /axes/0 (" + std::to_string(s.axes[0].values.size()) +
                               ", combine zip)",
                           std::to_string(s.axes[i].values.size()) + " values");
    if (!s.zip) {
        double points = 1;
        for (const Axis& a : s.axes)
            points *= double(a.values.size());
        if (points > double(kMaxPoints))
            errors.add("/axes", "at most " + std::to_string(kMaxPoints) + " points",
                       decimal(points) + " points (the product of the axes)");
    }

    if (doc.contains("replicates")) {
        const json& r = doc["replicates"];
        if (!r.is_number_unsigned() || r.get<uint64_t>() < 1 || r.get<uint64_t>() > kMaxReplicates)
            errors.add("/replicates", "a whole number from 1 to " + std::to_string(kMaxReplicates),
                       shown(r));
        else
            s.replicates = r.get<uint64_t>();
    }
    if (doc.contains("seed")) {
        const json& seed = doc["seed"];
        if (!seed.is_number_unsigned())
            errors.add("/seed", "a whole number from 0 to 18446744073709551615", shown(seed));
        else
            s.seed = seed.get<uint64_t>();
    }
    if (doc.contains("series")) load_series(doc["series"], s, errors);
    if (doc.contains("metrics")) {
        const json& m = doc["metrics"];
        if (!m.is_array() || m.empty()) {
            errors.add("/metrics", "a non-empty list of statistics paths", shown(m));
        } else {
            std::set<std::string> seen;
            for (size_t i = 0; i < m.size(); ++i) {
                const std::string at = "/metrics/" + std::to_string(i);
                if (!check_metric(m[i], at, s.series.has_value(), errors)) continue;
                if (!seen.insert(m[i].get<std::string>()).second)
                    errors.add(at, "a path not already in the list", shown(m[i]));
                else
                    s.metrics.push_back(m[i].get<std::string>());
            }
        }
    }
    if (doc.contains("target")) load_target(doc["target"], s, errors);
    if (s.target && !s.metrics.empty() &&
        std::find(s.metrics.begin(), s.metrics.end(), s.target->metric) == s.metrics.end())
        s.metrics.push_back(s.target->metric); // the answer's metric is summarised too

    if (errors.empty()) result.spec = std::move(s);
    result.errors = errors.take();
    return result;
}

} // namespace ringsim::platform::sweep
