// Fuzz target: the scenario loader with --set overrides, as `ringsim validate` calls it
// (platform/cli.cpp: load_scenario_file, then every error's message).
// Input: scenario text; optionally a line "--set" and then one override PATH=VALUE per line,
// and a line "--seed=N" among them for --seed. Bad input is a list of errors, never a crash.
#include "platform/config/loader.h"
#include "tests/fuzz/input.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ringsim::config;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::string separator = "\n--set\n";
    const size_t at = input.find(separator);
    const std::string text = input.substr(0, at);
    std::vector<std::string> sets;
    std::optional<uint64_t> seed;
    if (at != std::string::npos) {
        size_t line = at + separator.size();
        while (line <= input.size()) {
            size_t end = input.find('\n', line);
            if (end == std::string::npos) end = input.size();
            const std::string s = input.substr(line, end - line);
            if (s.rfind("--seed=", 0) == 0)
                seed = std::strtoull(s.c_str() + 7, nullptr, 10);
            else
                sets.push_back(s);
            line = end + 1;
        }
    }
    const LoadResult r = load_scenario_json(text, sets, seed, "fuzz.json");
    size_t chars = 0;
    for (const ConfigError& e : r.errors)
        chars += e.message().size();
    if (r.scenario) chars += r.effective.dump(2).size();
    ringsim::fuzz::g_sink = chars; // keeps the work from being optimised away
    return 0;
}
