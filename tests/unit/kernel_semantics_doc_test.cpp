// docs/kernel-semantics.md is where the mechanism numbers cited in ringsim's code (R5, E4,
// D10, ...) are explained: each number cited in models/, platform/ or tests/ must have its
// entry there, so a comment never points to a page that does not say what it means.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(KernelSemanticsDoc, EveryNumberCitedInTheCodeHasItsEntry) {
    const fs::path root = RINGSIM_SOURCE_DIR;
    const std::string page = read(root / "docs" / "kernel-semantics.md");
    ASSERT_FALSE(page.empty()) << "docs/kernel-semantics.md is missing";
    // A family letter and a number, as a word of its own: "R5", "(E4, D10)", "A2/A6".
    const std::regex cited(R"((^|[^A-Za-z0-9_])([RMAPECD][0-9]{1,2})(?![0-9A-Za-z_]))");
    std::map<std::string, std::string> first_cited_in; // number -> file
    for (const char* dir : {"models", "platform", "tests"}) {
        for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
            const std::string ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
            const std::string text = read(e.path());
            for (std::sregex_iterator m(text.begin(), text.end(), cited), end; m != end; ++m)
                first_cited_in.emplace((*m)[2].str(), fs::relative(e.path(), root).string());
        }
    }
    ASSERT_GT(first_cited_in.size(), 40u); // the scan itself works
    // Arm names of the same shape that are no mechanism numbers: the A64 instruction set,
    // the Cortex-A57 (OpenCSD's core type), ETMv4's P0 elements (atoms; Trace Info's P0 key).
    for (const char* arm_name : {"A57", "A64", "P0"})
        first_cited_in.erase(arm_name);
    for (const auto& [number, file] : first_cited_in)
        EXPECT_NE(page.find("**" + number + "**"), std::string::npos)
            << number << " (cited in " << file << ") has no entry in docs/kernel-semantics.md";
}

} // namespace
