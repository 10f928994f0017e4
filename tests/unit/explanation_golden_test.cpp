// One explanation per verdict kind, word for word: the story a student reads for a stale
// and an overrun data record (with (D) off, and with (A) off, whose story names the
// producer's data_tail load), a torn one, and for stale and overrun AUX bytes, each from one
// seed of a teaching scenario. A change to what an explanation says shows here as
// a diff of tests/golden/explanations/; RINGSIM_UPDATE_DOCS=1 rewrites the files.
#include "tests/support/generated_doc.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace {

struct Golden {
    const char* name;     // tests/golden/explanations/<name>.txt
    const char* scenario; // under scenarios/teaching/
    int seed;
    const char* kind;
    bool aux; // an AUX violation (its buffer is an AUX area)
};
// gtest names a failing case by this, not by the struct's bytes.
void PrintTo(const Golden& g, std::ostream* os) {
    *os << g.name;
}

std::string first_explanation(const Golden& g) {
    const auto r = ringsim::testing_support::run_ringsim(
        std::string("scenarios/teaching/") + g.scenario, "--seed " + std::to_string(g.seed));
    for (const auto& x : r.violations.at("violations")) {
        const std::string buffer = x.at("buffer");
        const bool aux_buffer = buffer.size() > 4 && buffer.substr(buffer.size() - 4) == ".aux";
        if (x.at("kind") == g.kind && aux_buffer == g.aux)
            return x.at("explanation").get<std::string>() +
                   "Fix: " + x.at("fix").get<std::string>() + "\n";
    }
    return "";
}

class Explanations : public ::testing::TestWithParam<Golden> {};

TEST_P(Explanations, AreWordForWordTheGoldenOnes) {
    const Golden g = GetParam();
    const std::string got = first_explanation(g);
    ASSERT_FALSE(got.empty()) << g.scenario << " seed " << g.seed << " shows no " << g.kind;
    RINGSIM_EXPECT_GENERATED_DOC(std::string("tests/golden/explanations/") + g.name + ".txt", got);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, Explanations,
    // No torn record yet: a copy is one load at one instant, so a record's bytes all come
    // from one side of its overwrite (issue 10, section 2).
    ::testing::Values(Golden{"data-stale", "no-B.json", 2, "stale", false},
                      Golden{"data-overrun", "no-D.json", 4, "overrun", false},
                      Golden{"data-overrun-no-A", "no-A.json", 28, "overrun", false},
                      Golden{"data-torn", "torn.json", 10, "torn", false},
                      Golden{"aux-stale", "aux-no-B.json", 1, "stale", true},
                      Golden{"aux-overrun", "aux-no-D.json", 1, "overrun", true}),
    [](const auto& param) {
        std::string n = param.param.name;
        for (char& c : n)
            if (c == '-') c = '_';
        return n;
    });

} // namespace
