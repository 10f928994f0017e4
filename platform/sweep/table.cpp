#include "platform/sweep/table.h"

#include "platform/sweep/student_t.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#ifndef RINGSIM_VERSION
#define RINGSIM_VERSION "unknown"
#endif

namespace ringsim::platform::sweep {

using nlohmann::json;

namespace {

json target_json(const Target& t, const SweepSpec& spec) {
    return {{"metric", t.metric},
            {t.at_most ? "at_most" : "at_least", t.bound},
            {t.minimize ? "minimize" : "maximize", spec.axes[t.axis].path}};
}

// A CSV field: as it is, or quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// A value as a table shows it: strings without their quotes.
std::string value_text(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string number_text(double v) {
    return json(v).dump();
}

std::string short_number(double v) {
    std::ostringstream o;
    o << std::setprecision(4) << v;
    return o.str();
}

std::string line_key(const std::string& id, uint64_t replicate) {
    return id + "#" + std::to_string(replicate);
}

} // namespace

json sweep_json(const SweepSpec& spec, const Plan& plan) {
    json axes = json::array();
    for (const Axis& a : spec.axes) {
        json numeric = json::array();
        for (const auto& n : a.numeric)
            numeric.push_back(n ? json(*n) : json());
        axes.push_back({{"path", a.path}, {"values", a.values}, {"numeric", numeric}});
    }
    json points = json::array();
    for (const Point& p : plan.points)
        points.push_back({{"point", p.id}, {"axes", p.axes}, {"value_index", p.value_index}});
    return {{"ringsim_version", RINGSIM_VERSION},
            {"spec_file", spec.file},
            {"spec", spec.document},
            {"command_line_set", spec.command_line_sets},
            {"scenario", spec.scenario},
            {"spec_hash", plan.spec_hash},
            {"replicates", plan.replicates},
            {"seed", spec.seed},
            {"metrics", plan.metrics},
            {"target", spec.target ? target_json(*spec.target, spec) : json()},
            {"axes", axes},
            {"points", points}};
}

std::optional<SweepInfo> parse_sweep_json(const json& j, std::string& error) {
    try {
        SweepInfo info;
        info.spec_hash = j.at("spec_hash").get<std::string>();
        info.replicates = j.at("replicates").get<uint64_t>();
        info.metrics = j.at("metrics").get<std::vector<std::string>>();
        for (const json& a : j.at("axes")) {
            SweepInfo::AxisInfo axis;
            axis.path = a.at("path").get<std::string>();
            axis.values = a.at("values").get<std::vector<json>>();
            for (const json& n : a.at("numeric"))
                axis.numeric.push_back(n.is_number() ? std::optional<double>(n.get<double>())
                                                     : std::nullopt);
            info.axes.push_back(std::move(axis));
        }
        for (const json& p : j.at("points"))
            info.points.push_back(
                {p.at("point").get<std::string>(), p.at("value_index").get<std::vector<size_t>>()});
        const json& t = j.at("target");
        if (t.is_object()) {
            Target target;
            target.metric = t.at("metric").get<std::string>();
            target.at_most = t.contains("at_most");
            target.bound = t.at(target.at_most ? "at_most" : "at_least").get<double>();
            target.minimize = t.contains("minimize");
            const std::string path = t.at(target.minimize ? "minimize" : "maximize");
            const auto it = std::find_if(info.axes.begin(), info.axes.end(),
                                         [&](const auto& a) { return a.path == path; });
            if (it == info.axes.end()) throw std::runtime_error("target axis " + path);
            target.axis = size_t(it - info.axes.begin());
            info.target = target;
        }
        return info;
    } catch (const std::exception& e) {
        error = std::string("not a sweep.json ringsim wrote (") + e.what() + ")";
        return std::nullopt;
    }
}

Table build_table(const SweepInfo& info, const std::vector<json>& lines) {
    Table t;
    std::map<std::string, size_t> point_of;
    for (size_t i = 0; i < info.points.size(); ++i)
        point_of.emplace(info.points[i].id, i);
    // The line kept for each (point, replicate): the first that completed, else the first.
    std::map<std::string, const json*> kept;
    for (const json& line : lines) {
        const std::string id = line.value("point", "");
        const uint64_t r = line.value("replicate", uint64_t(0));
        if (!point_of.count(id) || r >= info.replicates) {
            ++t.unknown;
            continue;
        }
        const auto [it, fresh] = kept.emplace(line_key(id, r), &line);
        if (fresh) continue;
        ++t.duplicates;
        if (it->second->value("status", "") != "ok" && line.value("status", "") == "ok")
            it->second = &line;
    }
    for (size_t p = 0; p < info.points.size(); ++p) {
        Row row;
        row.point = p;
        row.values.resize(info.metrics.size());
        for (uint64_t r = 0; r < info.replicates; ++r) {
            const auto it = kept.find(line_key(info.points[p].id, r));
            if (it == kept.end()) {
                ++t.missing;
                continue;
            }
            const json& line = *it->second;
            if (line.value("status", "") != "ok") {
                ++row.failed;
                continue;
            }
            ++row.replicates;
            for (size_t m = 0; m < info.metrics.size(); ++m)
                if (const json* v = metric_at(line, info.metrics[m]); v && v->is_number())
                    row.values[m].push_back(v->get<double>());
        }
        for (const auto& values : row.values) {
            MetricSummary s;
            s.n = values.size();
            if (s.n) {
                double sum = 0;
                for (double v : values)
                    sum += v;
                s.mean = sum / double(s.n);
            }
            if (s.n >= 2) {
                double squares = 0;
                for (double v : values)
                    squares += (v - s.mean) * (v - s.mean);
                const double half = student_t_quantile(0.975, double(s.n - 1)) *
                                    std::sqrt(squares / double(s.n - 1) / double(s.n));
                s.ci95 = std::make_pair(s.mean - half, s.mean + half);
            }
            row.metrics.push_back(s);
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

json table_json(const SweepInfo& info, const Table& t) {
    json rows = json::array();
    for (const Row& row : t.rows) {
        const auto& point = info.points[row.point];
        json axes = json::object();
        for (size_t a = 0; a < info.axes.size(); ++a)
            axes[info.axes[a].path] = info.axes[a].values[point.value_index[a]];
        json metrics = json::object();
        for (size_t m = 0; m < info.metrics.size(); ++m) {
            const MetricSummary& s = row.metrics[m];
            metrics[info.metrics[m]] = {
                {"mean", s.n ? json(s.mean) : json()},
                {"ci95", s.ci95 ? json{s.ci95->first, s.ci95->second} : json()}};
        }
        rows.push_back({{"point", point.id},
                        {"axes", axes},
                        {"replicates", row.replicates},
                        {"failed", row.failed},
                        {"metrics", metrics}});
    }
    return {{"spec_hash", info.spec_hash},
            {"rows", rows},
            {"missing", t.missing},
            {"duplicates_dropped", t.duplicates}};
}

std::string table_csv(const SweepInfo& info, const Table& t) {
    std::ostringstream out;
    out << "point";
    for (const auto& a : info.axes)
        out << "," << csv_field(a.path);
    out << ",replicates,failed";
    for (const std::string& m : info.metrics)
        out << "," << m << ".mean," << m << ".ci95_lo," << m << ".ci95_hi";
    out << "\n";
    for (const Row& row : t.rows) {
        const auto& point = info.points[row.point];
        out << point.id;
        for (size_t a = 0; a < info.axes.size(); ++a)
            out << "," << csv_field(value_text(info.axes[a].values[point.value_index[a]]));
        out << "," << row.replicates << "," << row.failed;
        for (const MetricSummary& s : row.metrics) {
            out << "," << (s.n ? number_text(s.mean) : "");
            out << "," << (s.ci95 ? number_text(s.ci95->first) : "");
            out << "," << (s.ci95 ? number_text(s.ci95->second) : "");
        }
        out << "\n";
    }
    return out.str();
}

void print_table(std::ostream& out, const SweepInfo& info, const Table& t) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> head;
    for (const auto& a : info.axes)
        head.push_back(a.path);
    head.insert(head.end(), {"reps", "failed"});
    for (const std::string& m : info.metrics)
        head.push_back(m);
    cells.push_back(head);
    for (const Row& row : t.rows) {
        std::vector<std::string> line;
        const auto& point = info.points[row.point];
        for (size_t a = 0; a < info.axes.size(); ++a)
            line.push_back(value_text(info.axes[a].values[point.value_index[a]]));
        line.push_back(std::to_string(row.replicates));
        line.push_back(std::to_string(row.failed));
        for (const MetricSummary& s : row.metrics) {
            std::string text = s.n ? short_number(s.mean) : "-";
            if (s.ci95)
                text +=
                    " [" + short_number(s.ci95->first) + ", " + short_number(s.ci95->second) + "]";
            line.push_back(text);
        }
        cells.push_back(line);
    }
    std::vector<size_t> width(head.size(), 0);
    for (const auto& line : cells)
        for (size_t c = 0; c < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());
    for (const auto& line : cells) {
        for (size_t c = 0; c < line.size(); ++c)
            out << (c ? "  " : "") << std::left
                << std::setw(c + 1 < line.size() ? int(width[c]) : 0) << line[c];
        out << std::right << "\n";
    }
    if (t.missing) out << t.missing << " (point, replicate) pairs have no result yet\n";
    if (t.duplicates) out << t.duplicates << " duplicate result lines dropped\n";
    if (t.unknown) out << t.unknown << " result lines of points not in this sweep ignored\n";
}

Answer answer(const SweepInfo& info, const Table& t) {
    Answer a;
    if (!info.target) return a;
    const Target& target = *info.target;
    const size_t ta = target.axis;
    for (size_t i = 0; i < info.axes.size(); ++i)
        if (i != ta) a.other_paths.push_back(info.axes[i].path);
    const size_t metric = size_t(
        std::find(info.metrics.begin(), info.metrics.end(), target.metric) - info.metrics.begin());
    // The rows of each combination of the other axes, in the order they first appear.
    std::vector<std::vector<size_t>> keys;
    std::vector<std::vector<const Row*>> groups;
    for (const Row& row : t.rows) {
        std::vector<size_t> key = info.points[row.point].value_index;
        key.erase(key.begin() + long(ta));
        const auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            keys.push_back(key);
            groups.push_back({&row});
        } else {
            groups[size_t(it - keys.begin())].push_back(&row);
        }
    }
    const auto& axis = info.axes[ta];
    const bool numeric = std::all_of(axis.numeric.begin(), axis.numeric.end(),
                                     [](const auto& n) { return bool(n); });
    const auto order = [&](size_t v) { return numeric ? *axis.numeric[v] : double(v); };
    for (size_t g = 0; g < groups.size(); ++g) {
        auto rows = groups[g];
        std::sort(rows.begin(), rows.end(), [&](const Row* x, const Row* y) {
            const double ox = order(info.points[x->point].value_index[ta]);
            const double oy = order(info.points[y->point].value_index[ta]);
            return target.minimize ? ox < oy : ox > oy;
        });
        Answer::Line line;
        for (size_t i = 0, o = 0; i < info.axes.size(); ++i)
            if (i != ta) line.others.push_back(info.axes[i].values[keys[g][o++]]);
        size_t incomplete = 0, without_metric = 0;
        for (const Row* row : rows) {
            const bool complete = row->replicates == info.replicates;
            const auto& values =
                metric < row->values.size() ? row->values[metric] : std::vector<double>{};
            const bool meets = complete && values.size() == info.replicates &&
                               std::all_of(values.begin(), values.end(), [&](double v) {
                                   return target.at_most ? v <= target.bound : v >= target.bound;
                               });
            if (meets) {
                line.value = axis.values[info.points[row->point].value_index[ta]];
                break;
            }
            if (!complete)
                ++incomplete;
            else if (values.size() != info.replicates)
                ++without_metric;
        }
        const std::string where = line.value ? " before it" : " of this line";
        if (incomplete)
            line.note = std::to_string(incomplete) + " point(s)" + where +
                        " not complete (failed or missing replicates)";
        else if (without_metric)
            line.note = std::to_string(without_metric) + " point(s)" + where + " without " +
                        target.metric + " in their stats.json";
        a.lines.push_back(std::move(line));
    }
    return a;
}

std::string answer_csv(const SweepInfo& info, const Answer& a) {
    std::ostringstream out;
    for (const std::string& p : a.other_paths)
        out << csv_field(p) << ",";
    out << csv_field(info.axes[info.target->axis].path) << ",status\n";
    for (const auto& line : a.lines) {
        for (const json& v : line.others)
            out << csv_field(value_text(v)) << ",";
        out << (line.value ? csv_field(value_text(*line.value)) : "") << ","
            << (line.note.empty() ? (line.value ? "ok" : "none in range") : "incomplete") << "\n";
    }
    return out.str();
}

void print_answer(std::ostream& out, const SweepInfo& info, const Answer& a) {
    const Target& t = *info.target;
    out << "\n"
        << (t.minimize ? "smallest " : "largest ") << info.axes[t.axis].path << " with " << t.metric
        << (t.at_most ? " <= " : " >= ") << short_number(t.bound) << " in every replicate:\n";
    for (const auto& line : a.lines) {
        std::string where;
        for (size_t i = 0; i < line.others.size(); ++i)
            where += (i ? ", " : "") + a.other_paths[i] + "=" + value_text(line.others[i]);
        out << "  " << (where.empty() ? "" : where + ": ")
            << (line.value ? value_text(*line.value) : "none in range")
            << (line.note.empty() ? "" : " (" + line.note + ")") << "\n";
    }
}

} // namespace ringsim::platform::sweep
