// The lessons' table (see lessons.h).
#include "platform/lessons.h"

#include <algorithm>
#include <stdexcept>

namespace ringsim::platform {

namespace {

struct Entry {
    const char* name;
    uint64_t seed;
    std::vector<std::string> kinds;
};

// The seed each lesson is run with and what it shows there (readers.json is, like
// matrix.json, a stress test that `matrix` runs, not a lesson). All but `torn` show theirs with
// the file's own seed 1; torn records need seed 2 (`ringsim explore` lists the first seed of
// each kind).
const Entry kTable[] = {
    {"no-A", 1, {"overrun"}},
    {"no-B", 1, {"stale"}},
    {"no-C", 1, {"stale"}},
    {"no-D", 1, {"overrun"}},
    {"no-B-C", 1, {"stale"}},
    {"no-A-D", 1, {"overrun"}},
    {"d-rmb", 1, {}},
    {"d-wmb", 1, {"overrun"}},
    {"perf-acquire-release", 1, {}},
    {"torn", 2, {"overrun", "stale", "torn"}},
    {"aux-no-A", 1, {}},
    {"aux-no-B", 1, {"stale"}},
    {"aux-no-B-correct", 1, {}},
    {"aux-no-C", 1, {"stale"}},
    {"aux-no-C-correct", 1, {}},
    {"aux-no-D", 1, {"overrun"}},
    {"aux-no-D-correct", 1, {}},
    {"aya-0.13", 1, {"stale"}},
    {"aya", 1, {}},
};

} // namespace

const std::vector<Lesson>& lessons() {
    static const std::vector<Lesson> all = [] {
        std::vector<Lesson> out;
        for (const Entry& e : kTable) {
            const auto& files = teaching_scenarios();
            const auto f =
                std::find_if(files.begin(), files.end(), [&e](const EmbeddedScenario& s) {
                    return e.name == std::string(s.name);
                });
            // A lesson without its file is a build error in all but name: fail loudly.
            if (f == files.end())
                throw std::logic_error(std::string("lesson ") + e.name +
                                       " has no scenarios/teaching file built in");
            out.push_back({e.name, e.seed, e.kinds, f->text});
        }
        return out;
    }();
    return all;
}

const Lesson* find_lesson(const std::string& name) {
    for (const Lesson& l : lessons())
        if (l.name == name) return &l;
    return nullptr;
}

} // namespace ringsim::platform
