#include "platform/sweep/steady.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace ringsim::platform::sweep {

using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, ',');)
        out.push_back(field);
    return out;
}

double fraction(uint64_t part, uint64_t whole) {
    return whole ? double(part) / double(whole) : 0.0;
}

} // namespace

std::optional<json> steady_figures(const std::filesystem::path& series_csv, uint64_t interval_ps,
                                   uint64_t warmup_ps, uint64_t duration_ps, std::string& error) {
    std::ifstream in(series_csv);
    std::string line;
    if (!in || !std::getline(in, line)) {
        error = "series.csv missing or empty";
        return std::nullopt;
    }
    const std::vector<std::string> head = split(line);
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < head.size(); ++i)
        col[head[i]] = i;
    for (const char* need : {"time_ps", "records.produced", "records.delivered", "records.lost"})
        if (!col.count(need)) {
            error = std::string("series.csv has no column ") + need;
            return std::nullopt;
        }
    const bool aux = col.count("aux.bytes.produced") && col.count("aux.bytes.lost");
    std::map<std::string, uint64_t> sum;
    std::set<uint64_t> ends;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line);
        if (f.size() != head.size()) {
            error = "series.csv has a row of " + std::to_string(f.size()) + " fields";
            return std::nullopt;
        }
        const uint64_t end = std::stoull(f[col["time_ps"]]);
        // The interval (end - interval, end]: after the warm-up, within the workload.
        if (end < interval_ps || end - interval_ps < warmup_ps || end > duration_ps) continue;
        ends.insert(end);
        for (const char* c : {"records.produced", "records.delivered", "records.lost",
                              "aux.bytes.produced", "aux.bytes.lost"})
            if (col.count(c)) sum[c] += std::stoull(f[col[c]]);
    }
    if (ends.empty()) {
        error = "no interval of series.csv falls between the warm-up and the workload's end";
        return std::nullopt;
    }
    json total = {{"records",
                   {{"produced", sum["records.produced"]},
                    {"delivered", sum["records.delivered"]},
                    {"lost", sum["records.lost"]},
                    {"lost_fraction", fraction(sum["records.lost"], sum["records.produced"])}}}};
    if (aux)
        total["aux"] = {
            {"bytes",
             {{"produced", sum["aux.bytes.produced"]},
              {"lost", sum["aux.bytes.lost"]},
              {"lost_fraction", fraction(sum["aux.bytes.lost"], sum["aux.bytes.produced"])}}}};
    return json{{"window_s", double(ends.size()) * double(interval_ps) * 1e-12}, {"total", total}};
}

} // namespace ringsim::platform::sweep
