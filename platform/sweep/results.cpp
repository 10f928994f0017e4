#include "platform/sweep/results.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ringsim::platform::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

std::string shard_file_name(uint64_t shard, uint64_t shards) {
    return "points-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".jsonl";
}

ResultLines read_result_file(const fs::path& file, bool cut_torn) {
    ResultLines r;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        if (fs::exists(file)) r.error = "cannot read " + file.string();
        return r;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    size_t start = 0, line_number = 1;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        const bool last = end == std::string::npos || end + 1 == text.size();
        json j = end == std::string::npos ? json(json::value_t::discarded)
                                          : json::parse(text.begin() + long(start),
                                                        text.begin() + long(end), nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            if (!last) {
                r.error = file.string() + ": line " + std::to_string(line_number) +
                          " is damaged (not a whole JSON object) and is not the last";
                return r;
            }
            r.torn = true;
            if (cut_torn) {
                std::error_code ec;
                fs::resize_file(file, start, ec);
                if (ec) r.error = "cannot cut the torn last line of " + file.string();
            }
            return r;
        }
        r.lines.push_back(std::move(j));
        start = end + 1;
        ++line_number;
    }
    return r;
}

ResultLines read_result_dir(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("points-", 0) == 0 && e.path().extension() == ".jsonl")
            files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    ResultLines all;
    for (const fs::path& f : files) {
        ResultLines r = read_result_file(f, false);
        if (!r.error.empty()) {
            all.error = r.error;
            return all;
        }
        all.torn = all.torn || r.torn;
        for (json& j : r.lines)
            all.lines.push_back(std::move(j));
    }
    return all;
}

bool append_line(int fd, const json& line) {
    const std::string text = line.dump() + "\n";
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

std::string unique_suffix() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return std::string(host) + "." + std::to_string(getpid());
}

bool write_json_atomically(const fs::path& file, const json& j) {
    const fs::path tmp = file.string() + ".tmp." + unique_suffix();
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
        if (!out) return false;
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec) fs::remove(tmp, ec);
    return !ec;
}

} // namespace ringsim::platform::sweep
