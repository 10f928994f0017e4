// The lessons of scenarios/teaching/, built into the binary (`ringsim lesson NAME` runs one
// wherever ringsim is run from): each with the seed that shows it and the violation kinds it
// shows there, no more, no fewer (none for the lessons whose point is that nothing goes
// wrong). tests/unit/lesson_test.cpp holds the table against the runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::platform {

struct Lesson {
    std::string name;               // scenarios/teaching/NAME.json
    uint64_t seed = 1;              // the seed that shows it
    std::vector<std::string> kinds; // violation kinds it shows (data or AUX), sorted
    std::string scenario;           // the file's text, as built in
};

// Every lesson, by name (the stress tests of the barrier and readers matrices are not ones:
// `matrix` runs them).
const std::vector<Lesson>& lessons();
const Lesson* find_lesson(const std::string& name);

// The scenario files built into the binary: scenarios/teaching/*.json, name -> text
// (generated at build time by platform/CMakeLists.txt).
struct EmbeddedScenario {
    const char* name;
    const char* text;
};
const std::vector<EmbeddedScenario>& teaching_scenarios();

} // namespace ringsim::platform
