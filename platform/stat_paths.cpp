#include "platform/stat_paths.h"

#include "platform/export/perf_data_writer.h"

#include <algorithm>
#include <cstdint>

namespace ringsim::platform {

const models::StatRegistry& stat_registry() {
    static const models::StatRegistry registry = [] {
        models::StatRegistry r;
        models::declare_perf_buffer_stats(r);
        models::declare_perf_wakeup_stats(r);
        models::declare_checker_stats(r);
        models::declare_consumer_stats(r);
        models::declare_mmu_stats(r);
        models::declare_aux_checker_stats(r);
        models::declare_perf_aux_stats(r);
        models::declare_cs_etm_driver_stats(r);
        models::declare_cs_etm_event_stats(r);
        models::declare_etr_sink_stats(r);
        models::declare_auxtrace_reader_stats(r);
        declare_perf_data_stats(r);
        return r;
    }();
    return registry;
}

std::vector<std::string> stat_paths() {
    std::vector<std::string> out;
    for (const models::StatDecl& d : stat_registry().decls()) {
        if (d.in(models::StatScope::total)) out.push_back("total." + d.path);
        if (d.in(models::StatScope::buffer)) out.push_back("buffers.*." + d.path);
    }
    return out;
}

namespace {

// "buffers.12.x" or "buffers.cpu2.x" -> "buffers.*.x": a sweep names a concrete buffer, by
// its index or its name, the registry any.
std::string any_buffer(const std::string& path) {
    const std::string prefix = "buffers.";
    if (path.compare(0, prefix.size(), prefix) != 0) return path;
    const size_t end = path.find('.', prefix.size());
    if (end == std::string::npos || end == prefix.size()) return path;
    return prefix + "*" + path.substr(end);
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

} // namespace

bool is_stat_path(const std::string& path) {
    const std::vector<std::string> known = stat_paths();
    return std::find(known.begin(), known.end(), any_buffer(path)) != known.end();
}

std::string nearest_stat_path(const std::string& path) {
    const std::string wanted = any_buffer(path);
    std::string best;
    size_t best_distance = SIZE_MAX;
    for (const std::string& p : stat_paths())
        if (const size_t d = edit_distance(wanted, p); d < best_distance) {
            best = p;
            best_distance = d;
        }
    return best;
}

} // namespace ringsim::platform
