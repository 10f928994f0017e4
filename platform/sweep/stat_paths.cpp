#include "platform/sweep/stat_paths.h"

#include "models/common/aux_stats.h"
#include "models/common/buffer_stats.h"

#include <algorithm>
#include <sstream>

namespace ringsim::platform::sweep {

const std::vector<std::string>& metric_patterns() {
    static const std::vector<std::string> patterns = [] {
        std::vector<std::string> p;
        for (const char* scope : {"total.", "buffers.*."}) {
            for (const auto& d : models::buffer_stat_defs())
                p.push_back(scope + std::string(d.path));
            p.push_back(scope + std::string("records.lost_fraction"));
            for (const auto& d : models::aux_stat_defs())
                p.push_back(scope + std::string("aux.") + d.path);
            p.push_back(scope + std::string("aux.bytes.lost_fraction"));
        }
        return p;
    }();
    return patterns;
}

namespace {

// "buffers.cpu2.records.lost" -> "buffers.*.records.lost".
std::string pattern_of(const std::string& path) {
    const std::string prefix = "buffers.";
    if (path.compare(0, prefix.size(), prefix) != 0) return path;
    const size_t dot = path.find('.', prefix.size());
    if (dot == std::string::npos || dot == prefix.size()) return path;
    return prefix + "*" + path.substr(dot);
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

} // namespace

bool is_stat_path(const std::string& path) {
    const auto& p = metric_patterns();
    return std::find(p.begin(), p.end(), pattern_of(path)) != p.end();
}

std::string nearest_stat_path(const std::string& path) {
    const std::string wanted = pattern_of(path);
    std::string best;
    size_t best_distance = SIZE_MAX;
    for (const std::string& p : metric_patterns()) {
        const size_t d = edit_distance(wanted, p);
        if (d < best_distance) best = p, best_distance = d;
    }
    return best;
}

} // namespace ringsim::platform::sweep
