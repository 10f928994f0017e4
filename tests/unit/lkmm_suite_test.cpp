// The kernel's own litmus tests (tools/memory-model/litmus-tests/ of Linux 6.1, extracted
// from Debian's linux-source-6.1 by tools/lkmm-tests.sh at test time, never committed), run
// by `ringsim litmus` under sc, tso and arm: every one ringsim can express passes (its
// verdict is its Result line, or the exceptions file's where the architecture differs), at
// least two thirds are expressed (all 34 of 6.1's are), those that are not name an atomic
// primitive ringsim does not map, and every exception names a test of the kernel's.
#include "platform/litmus/kernel_litmus.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;
using namespace ringsim::platform::litmus;
using ringsim::testing_support::run_command_output;

// The extracted directory (once per build tree; concurrent tests wait for one another).
std::string kernel_tests() {
    const std::string dir = fs::path(RINGSIM_BINARY).parent_path().string() + "/lkmm/litmus-tests";
    const auto r =
        run_command_output(std::string(RINGSIM_SOURCE_DIR) + "/tools/lkmm-tests.sh " + dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return dir;
}

std::set<std::string> test_names(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".litmus") names.insert(e.path().stem().string());
    return names;
}

TEST(LkmmSuite, EveryExpressibleKernelTestPassesAndTwoThirdsAreExpressed) {
    const std::string dir = kernel_tests();
    const size_t files = test_names(dir).size();
    ASSERT_GE(files, 30u) << "the 6.1 tree has 34";
    const auto r = run_command_output(std::string(RINGSIM_BINARY) + " litmus " + dir);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;

    std::smatch m;
    const std::regex count(R"(kernel tests: (\d+) of (\d+) expressed and run)");
    ASSERT_TRUE(std::regex_search(r.out, m, count)) << r.out;
    const size_t expressed = std::stoul(m[1]), read = std::stoul(m[2]);
    EXPECT_EQ(read, files);
    EXPECT_GE(3 * expressed, 2 * files) << expressed << " of " << files;
    std::cout << "[          ] " << expressed << " of " << files << " kernel tests expressed\n";

    // The 6.1 tree's tests are all expressed (its locks as acquire exchanges). Another tree
    // may hold tests of atomics ringsim does not map (cmpxchg, atomic_inc, trylock, ...):
    // those must say so. Anything else would be a reader gap.
    const std::regex lacks(R"(\n  (\S+\.litmus): ([^\n]*))");
    size_t unexpressed = 0;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), lacks);
         it != std::sregex_iterator(); ++it, ++unexpressed) {
        const std::string why = (*it)[2];
        EXPECT_TRUE(why.find("read-modify-write") != std::string::npos ||
                    why.find("atomic operation") != std::string::npos ||
                    why.find("ringsim maps spin_lock") != std::string::npos)
            << (*it)[1] << ": " << why;
    }
    EXPECT_EQ(expressed + unexpressed, files);

    // Three models, one exists clause each.
    const std::regex check(R"((\d+) checks, 0 failed)");
    ASSERT_TRUE(std::regex_search(r.out, m, check)) << r.out;
    EXPECT_EQ(std::stoul(m[1]), 3 * expressed);
}

TEST(LkmmSuite, EveryExceptionNamesAKernelTest) {
    const std::set<std::string> names = test_names(kernel_tests());
    const ExceptionsResult ex = parse_exceptions(builtin_lkmm_exceptions(), "builtin");
    ASSERT_EQ(ex.error, "");
    for (const LkmmException& e : ex.list)
        EXPECT_TRUE(names.count(e.test)) << e.where << ": " << e.test << " is not a kernel test";
}

} // namespace
