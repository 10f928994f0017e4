// platform/commands.h: every command's usage comes from the one table, and what ringsim
// prints on a bad flag is that command's usage, with the shared exit code 2.
#include "platform/commands.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

namespace {

using ringsim::platform::usage;

const char* const kCommands[] = {"run",   "validate", "explore", "matrix", "litmus",
                                 "sweep", "merge",    "params",  "stats"};

TEST(Commands, RingsimsUsageListsEveryCommandAndEachHasItsOwn) {
    const std::string all = usage("");
    for (const std::string cmd : kCommands) {
        const bool listed = all.find("\n  " + cmd + " ") != std::string::npos ||
                            all.find("\n  " + cmd + "\n") != std::string::npos;
        EXPECT_TRUE(listed) << cmd;
        const std::string own = usage(cmd);
        EXPECT_EQ(own.rfind("usage: ringsim " + cmd, 0), 0u) << own;
        EXPECT_NE(own.find("exit codes: 0 done"), std::string::npos) << own;
    }
    EXPECT_EQ(usage("no-such-command"), all);
}

TEST(Commands, ABadFlagPrintsThatCommandsUsageAndExitsTwo) {
    for (const std::string cmd :
         {"run", "validate", "explore", "matrix", "litmus", "sweep", "merge"}) {
        const auto r = ringsim::testing_support::run_command(std::string(RINGSIM_BINARY) + " " +
                                                             cmd + " --no-such-flag");
        EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find("usage: ringsim " + cmd), std::string::npos) << cmd << ": " << r.err;
    }
}

} // namespace
