// A sweep's results on disk: DIR/sweep.json (the spec, its hash, the points) and one JSON
// line per finished (point, replicate) in DIR/points-I-of-N.jsonl. A line is written whole,
// in one write(), so a process killed at any moment leaves at most one torn last line, which
// the next run cuts off and redoes.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::platform::sweep {

// "points-2-of-4.jsonl"
std::string shard_file_name(uint64_t shard, uint64_t shards);

struct ResultLines {
    std::vector<nlohmann::json> lines; // in file order
    bool torn = false;                 // the last line was incomplete (and cut off, if asked)
    std::string error;                 // a damaged line other than the last, or unreadable
};

// Reads one results file; with `cut_torn`, a torn last line is removed from the file.
ResultLines read_result_file(const std::filesystem::path& file, bool cut_torn);

// Every DIR/points-*.jsonl, in file-name order; torn last lines are skipped, not cut.
ResultLines read_result_dir(const std::filesystem::path& dir);

// Appends one line to a results file opened for appending; false when it could not be
// written whole.
bool append_line(int fd, const nlohmann::json& line);

// "host.pid": a name part no other process writing the same shared directory uses.
std::string unique_suffix();

// Writes `j` to `file` through a temporary file and a rename, so that concurrent shards
// writing the same DIR/sweep.json never leave a half-written one.
bool write_json_atomically(const std::filesystem::path& file, const nlohmann::json& j);

} // namespace ringsim::platform::sweep
